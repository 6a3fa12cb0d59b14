/**
 * Runs tests/helpers/reference_logprobs.py (the trainer's fp32 forward, or
 * transformers + peft) over engine replies' own prompt and reply ids: what
 * the engine checks (vLLM's integration test, gpu-check's SGLang row)
 * compare an engine's raw log-probs and top-K with.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { GenerateResult } from '../../src/core/protocols/engineProtocol';

export type ReferenceRow = { logprobs: number[]; topIds: number[][]; topLogprobs: number[][] };

/** `python` runs the script with `env` (PYTHONPATH naming the trainer's sources when it is the trainer's environment). */
export function referenceRows(
  python: string,
  env: NodeJS.ProcessEnv,
  request: { modelDir: string; adapterDir: string | null; k: number; results: readonly GenerateResult[] },
): Promise<{ source: 'trainer' | 'transformers'; rows: ReferenceRow[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(import.meta.dirname, 'reference_logprobs.py')], { stdio: ['pipe', 'pipe', 'pipe'], shell: false, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as { source: 'trainer' | 'transformers'; rows: ReferenceRow[] })
        : reject(new Error(`reference_logprobs.py exited ${code}: ${err.slice(-2000)}`)),
    );
    const { modelDir, adapterDir, k, results } = request;
    child.stdin.end(JSON.stringify({ modelDir, adapterDir, k, items: results.map((r) => ({ promptIds: r.promptIds, tokenIds: r.tokenIds })) }));
  });
}
