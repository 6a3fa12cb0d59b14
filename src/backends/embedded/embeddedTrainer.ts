/**
 * The embedded trainer: the TypeScript LoRA trainer over onnxruntime
 * (src/backends/embedded/trainer/trainerWorker.ts, started by name
 * through `workerEntry('trainer')` — the lab never imports it). One local
 * process on the CPU; it writes float32 adapters and has no entropy term.
 */
import { SupervisedWorker } from '../../processes/supervisedWorker';
import { workerEntry } from '../../processes/workerEntry';
import { trainerProtocol } from '../../core/protocols/trainerProtocol';
import { workerDescriptor } from '../../processes/devices/rolePlacement';
import { BackendUnavailableError } from '../backendUnavailable';
import type { TrainerBackend } from '../trainerBackend';
import type { EmbeddedTrainerSection } from './embeddedBackend';

/** Refuses what it cannot train (the section's schema already holds it to one local process). */
export function embeddedTrainer(trainer: EmbeddedTrainerSection): TrainerBackend {
  const reasons: string[] = [];
  if (trainer.lora.dtype !== 'F32') reasons.push(`the embedded trainer writes F32 adapters; the recipe asks for ${trainer.lora.dtype}`);
  if (trainer.loss.entropy_coef !== 0) reasons.push(`the embedded trainer has no entropy term; the recipe's entropy_coef is ${trainer.loss.entropy_coef}`);
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
