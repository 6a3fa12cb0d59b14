/**
 * The embedded backend: the 2 M-parameter onnx policy served by the
 * onnxruntime engine worker, and the TypeScript LoRA trainer that trains it.
 * Both run as local worker processes on the CPU; neither needs Python.
 */
import { z } from 'zod';
import { policyCommonShape, trainerCommonShape } from '../../core/recipe/recipeSchema';
import { policyPart, trainerPart, type BackendDescriptor } from '../backendDescriptor';
import { EMBEDDED_ONNX } from '../modelFormats';
import { embeddedPolicy } from './embeddedPolicy';
import { embeddedTrainer } from './embeddedTrainer';

export const embeddedPolicySection = z.strictObject({
  kind: z.literal('embedded'),
  model_dir: z.string().min(1).describe('onnx policy directory (relative paths resolve against the repository root)'),
  ...policyCommonShape,
});

export const embeddedTrainerSection = z.strictObject({
  kind: z.literal('embedded'),
  ...trainerCommonShape,
  launcher: z
    .literal('local', { error: "the embedded trainer runs as one local process; launchers 'torchrun' and 'ray' are for the torch trainer" })
    .default('local'),
  // Only `false`, which run journals written before the sections were per kind hold: a run folder from then still opens.
  gradient_checkpointing: z
    .literal(false, { error: 'gradient_checkpointing is a torch trainer option; the embedded trainer keeps no activations to recompute' })
    .optional(),
});
export type EmbeddedTrainerSection = z.infer<typeof embeddedTrainerSection>;

export const embeddedBackend: BackendDescriptor = {
  kind: 'embedded',
  policy: policyPart({
    section: embeddedPolicySection,
    modelFormat: EMBEDDED_ONNX,
    // Its engine worker can be a Ray actor: a JSON-lines worker the actor runs on its node.
    placement: { gpu: 'optional', rayJob: true },
    create: (policy, { resolvePath, tasks }) => embeddedPolicy(resolvePath(policy.model_dir), tasks),
  }),
  trainer: trainerPart({
    section: embeddedTrainerSection,
    trains: [EMBEDDED_ONNX],
    placement: { gpu: 'optional', rayJob: true },
    create: (trainer) => embeddedTrainer(trainer),
  }),
};
