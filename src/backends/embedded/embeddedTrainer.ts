/**
 * The embedded trainer: the TypeScript LoRA trainer over onnxruntime
 * (src/backends/embedded/trainer/trainerWorker.ts, started by name
 * through `workerEntry('trainer')` — the lab never imports it). One local
 * process on the CPU; it writes float32 adapters and has no entropy term.
 */
import type { Recipe } from '../../core/recipe/recipeSchema';
import { SupervisedWorker } from '../../processes/supervisedWorker';
import { workerEntry } from '../../processes/workerEntry';
import { trainerProtocol } from '../../core/protocols/trainerProtocol';
import { workerDescriptor } from '../../processes/devices/rolePlacement';
import { BackendUnavailableError } from '../backendUnavailable';
import type { TrainerBackend } from '../trainerBackend';

export function embeddedTrainer(recipe: Recipe): TrainerBackend {
  const { trainer } = recipe;
  const reasons: string[] = [];
  if (trainer.launcher !== 'local') reasons.push(`the embedded trainer runs as one local process; launcher '${trainer.launcher}' is for the torch trainer`);
  if (trainer.lora.dtype !== 'F32') reasons.push(`the embedded trainer writes F32 adapters; the recipe asks for ${trainer.lora.dtype}`);
  if (trainer.loss.entropy_coef !== 0) reasons.push(`the embedded trainer has no entropy term; the recipe's entropy_coef is ${trainer.loss.entropy_coef}`);
  if (recipe.policy.kind !== 'embedded') reasons.push(`the embedded trainer trains the embedded policy only, not '${recipe.policy.kind}'`);
  if (trainer.gradient_checkpointing) reasons.push('gradient_checkpointing is a torch trainer option; the embedded trainer keeps no activations to recompute');
  if (reasons.length > 0) throw new BackendUnavailableError(reasons);
  return {
    // Larger calls measured no faster here; 4k keeps a 16-turn window to a few calls.
    maxTokensPerCall: 4096,
    createWorker: ({ placement, setup, onLog }) =>
      new SupervisedWorker({
        name: 'trainer',
        protocol: trainerProtocol,
        entry: () => workerEntry('trainer'),
        env: placement.env,
        nice: placement.nice,
        ...(placement.launch ? { launch: placement.launch } : {}),
        describe: workerDescriptor('trainer', placement),
        startTimeoutMs: 120_000,
        setup,
        ...(onLog ? { onLog } : {}),
      }),
  };
}
