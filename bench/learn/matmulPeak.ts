/**
 * This machine's onnxruntime matrix-product peak, measured in the same run
 * as the trainer (bench/learn/matmul.onnx, one MatMul, written by
 * tools/trainer/export_matmul.py) with the trainer's thread count, at the
 * shapes the trainer's products have. The best of the shapes is the peak.
 */
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';

const MATMUL_GRAPH = fileURLToPath(new URL('./matmul.onnx', import.meta.url));

export interface MatmulPeak {
  readonly gflops: number;
  readonly shapes: ReadonlyArray<{ m: number; k: number; n: number; gflops: number }>;
}

export async function measureMatmulPeak(threads: number, shapes: ReadonlyArray<{ m: number; k: number; n: number }>, seconds = 1.5): Promise<MatmulPeak> {
  const session = await ort.InferenceSession.create(MATMUL_GRAPH, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  try {
    const results: Array<{ m: number; k: number; n: number; gflops: number }> = [];
    for (const { m, k, n } of shapes) {
      const a = new ort.Tensor(
        'float32',
        Float32Array.from({ length: m * k }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5),
        [m, k],
      );
      const b = new ort.Tensor(
        'float32',
        Float32Array.from({ length: k * n }, (_, i) => ((i * 104729) % 1000) / 1000 - 0.5),
        [k, n],
      );
      await session.run({ a, b });
      let reps = 0;
      const started = performance.now();
      while (performance.now() - started < seconds * 1000) {
        await session.run({ a, b });
        reps += 1;
      }
      const elapsed = (performance.now() - started) / 1000;
      results.push({ m, k, n, gflops: (2 * m * k * n * reps) / elapsed / 1e9 });
    }
    return { gflops: Math.max(...results.map((r) => r.gflops)), shapes: results };
  } finally {
    await session.release();
  }
}
