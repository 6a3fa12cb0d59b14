/**
 * The torch backend: the Python trainer gatelab_torch (torch, transformers,
 * peft) as a trainer-protocol worker (torchTrainer.ts). It runs in
 * GateLab's base Python environment, the one `npm run setup:python` always
 * makes from this folder's requirements.txt (src/processes/python/), so it
 * has no pythonEnvironment.json of its own.
 */
import { z } from 'zod';
import { trainerCommonShape } from '../../core/recipe/recipeSchema';
import { trainerPart, type BackendDescriptor } from '../backendDescriptor';
import { HUGGING_FACE } from '../modelFormats';
import { torchTrainer } from './torchTrainer';

export const torchTrainerSection = z.strictObject({
  kind: z.literal('torch'),
  ...trainerCommonShape,
  launcher: z
    .enum(['local', 'torchrun'], {
      error:
        "the torch trainer runs under launcher 'local' or 'torchrun'; to run it on a Ray cluster, keep one of those and name the trainer in the recipe's runner (kind: ray)",
    })
    .default('local')
    .describe("'local': one process; 'torchrun': data-parallel, one process per GPU of the trainer's placement"),
  gradient_checkpointing: z
    .boolean()
    .default(false)
    .describe(
      "recompute the decoder's activations in the backward pass instead of keeping them — they, not the logits, hold most of a long window's memory (bench:torch-trainer's long-window rows)",
    ),
});
export type TorchTrainerSection = z.infer<typeof torchTrainerSection>;

export const torchBackend: BackendDescriptor = {
  kind: 'torch',
  trainer: trainerPart({
    section: torchTrainerSection,
    trains: [HUGGING_FACE],
    placement: { gpu: 'optional', rayJob: true },
    create: (trainer, { env }) => torchTrainer(trainer, env ? { env } : {}),
  }),
};
