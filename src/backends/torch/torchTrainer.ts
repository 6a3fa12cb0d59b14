/**
 * The torch trainer: the Python package src/backends/torch/gatelab_torch
 * (torch + transformers + peft) as a `process` worker of the trainer
 * protocol — JSON lines on stdin/stdout, started with an argument array from
 * the environment `npm run setup:python` made (src/processes/python/).
 *
 * `launcher: local` runs one process; `launcher: torchrun` runs
 * `python -m torch.distributed.run --nproc-per-node N -m gatelab_torch`,
 * data-parallel over the trainer's GPUs (N = their count, NCCL) or N CPU
 * processes (gloo); rank 0 talks the protocol. The GPUs reach the processes
 * only as CUDA_VISIBLE_DEVICES from the role's placement.
 */
import { SupervisedWorker } from '../../processes/supervisedWorker';
import type { WorkerEntry } from '../../processes/workerEntry';
import { trainerProtocol } from '../../core/protocols/trainerProtocol';
import { workerDescriptor, type RolePlacement } from '../../processes/devices/rolePlacement';
import { findPythonEnvironment, PythonEnvironmentMissingError, torchWorkerSources } from '../../processes/python/pythonEnvironment';
import { BackendUnavailableError } from '../backendUnavailable';
import type { TrainerBackend } from '../trainerBackend';
import type { TorchTrainerSection } from './torchBackend';

export type TorchTrainerOptions = {
  /** Processes under torchrun on the CPU (default 2); on GPUs it is always one per GPU of the placement. */
  cpuProcesses?: number;
  /** Base weights' dtype: `auto` = bf16 on a GPU that has it, fp32 on the CPU. */
  dtype?: 'auto' | 'fp32' | 'bf16';
  /** Recompute activations in backward (default: the recipe's trainer.gradient_checkpointing). */
  gradientCheckpointing?: boolean;
  /** The environment GATELAB_HOME is read from (tests). */
  env?: Readonly<Record<string, string | undefined>>;
};

/** The argument array after the interpreter: the module alone, or torchrun around it. */
export function torchTrainerArgs(launcher: 'local' | 'torchrun', placement: RolePlacement, options: TorchTrainerOptions = {}): string[] {
  const module = ['-m', 'gatelab_torch', '--dtype', options.dtype ?? 'auto', ...(options.gradientCheckpointing ? ['--gradient-checkpointing'] : [])];
  if (launcher === 'local') return module;
  // A Ray job's GPUs are on its node (placement.remoteGpuCount); this host's are placement.gpus.
  const gpus = placement.gpus.length > 0 ? placement.gpus.length : (placement.remoteGpuCount ?? 0);
  const processes = gpus > 0 ? gpus : (options.cpuProcesses ?? 2);
  // --standalone: a local rendezvous on a free port, nothing outside this host.
  return ['-m', 'torch.distributed.run', '--standalone', `--nproc-per-node=${processes}`, ...module];
}

/** Refuses what it cannot train, and a missing Python environment (naming `npm run setup:python`). */
export function torchTrainer(trainer: TorchTrainerSection, options: TorchTrainerOptions = {}): TrainerBackend {
  const reasons: string[] = [];
  if (trainer.loss.entropy_coef !== 0) reasons.push(`the torch trainer has no entropy term; the recipe's entropy_coef is ${trainer.loss.entropy_coef}`);
  let python = '';
  let sources = '';
  try {
    python = findPythonEnvironment(options.env).python;
    sources = torchWorkerSources();
  } catch (error) {
    if (!(error instanceof PythonEnvironmentMissingError)) throw error;
    reasons.push(error.message);
  }
  if (reasons.length > 0) throw new BackendUnavailableError(reasons);
  const { launcher } = trainer;
  return {
    // A 16-turn window of SmolLM2-sized replies in a few calls (memory: the decoder's activations for 4096
    // tokens; the logits exist for a chunk of response positions at a time).
    maxTokensPerCall: 4096,
    createWorker: ({ placement, setup, onLog }) => {
      const entry = (): WorkerEntry => ({
        kind: 'process',
        command: python,
        args: torchTrainerArgs(launcher, placement, { gradientCheckpointing: trainer.gradient_checkpointing, ...options }),
        // PYTHONUNBUFFERED: protocol lines and logs leave at once; PYTHONPATH: the worker's sources, nothing else.
        env: { PYTHONPATH: sources, PYTHONUNBUFFERED: '1', PYTHONNOUSERSITE: '1' },
      });
      return new SupervisedWorker({
        name: 'trainer',
        protocol: trainerProtocol,
        entry,
        env: placement.env,
        nice: placement.nice,
        // recipe runner: ray — the process is a Ray job on a cluster node.
        ...(placement.launch ? { launch: placement.launch } : {}),
        describe: workerDescriptor('trainer', placement),
        // Importing torch and starting torchrun's ranks takes a while on a loaded CPU.
        startTimeoutMs: 300_000,
        setup,
        ...(onLog ? { onLog } : {}),
      });
    },
  };
}
