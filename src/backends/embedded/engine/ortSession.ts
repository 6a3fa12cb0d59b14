/**
 * The onnxruntime-node session the engine runs, and its options — exported
 * so bench:engine measures the bare forward pass under the same settings.
 */
import * as ort from 'onnxruntime-node';

/**
 * Threads: the embedded default's laptop has two cores. One intra-op thread per session
 * is the default because the embedded lab runs an engine and a trainer at the
 * same time, and a decode step of this model is too small (a few MFLOP per
 * token) for a second thread to pay for its synchronisation at batch 1.
 * `GATELAB_ORT_THREADS` overrides it (bench:policy uses 2 when alone).
 */
export function ortThreads(): number {
  const raw = process.env.GATELAB_ORT_THREADS;
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`GATELAB_ORT_THREADS must be an integer 1..64, got ${JSON.stringify(raw)}`);
  return n;
}

export function decodeSessionOptions(threads = ortThreads()): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    // Shapes change every step (the cache grows), so a memory pattern
    // planned for one shape would be discarded on the next.
    enableMemPattern: false,
    enableCpuMemArena: true,
    logSeverityLevel: 3,
  };
}

export async function createDecodeSession(modelPath: string, threads?: number): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(modelPath, decodeSessionOptions(threads));
}

/**
 * Runs a session one call at a time, in arrival order. ORT sessions accept
 * concurrent runs, but on two cores they would only fight over the threads;
 * queueing keeps decode steps and score calls from slowing each other down
 * unpredictably.
 */
export class SerialRunner {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly session: ort.InferenceSession) {}

  run(feeds: ort.InferenceSession.FeedsType): Promise<ort.InferenceSession.ReturnType> {
    const result = this.tail.then(() => this.session.run(feeds));
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export { ort };
