import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SMOLLM2_135M_CONFIG } from '../../core/weights/testing/smollm2Config';
import { unavailableReasons } from '../backendUnavailable';
import { sglangPolicy } from '../sglang/sglangPolicy';
import { vllmPolicy } from '../vllm/vllmPolicy';
import { servedContextProblem } from './servedContext';

/** A model folder whose config.json holds SmolLM2-135M's shape (8,192 positions). */
function modelFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatelab-context-'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(SMOLLM2_135M_CONFIG));
  return dir;
}

describe('the served context against the model', () => {
  const dir = modelFolder();

  it('accepts no request, the model’s own context and less', () => {
    expect(servedContextProblem(undefined, dir)).toBeNull();
    expect(servedContextProblem(8192, dir)).toBeNull();
    expect(servedContextProblem(2048, dir)).toBeNull();
  });

  it('names both numbers when asked for more than the model holds', () => {
    expect(servedContextProblem(8193, dir)).toBe(
      `max_model_len 8193 is more than the model's own context of 8192 tokens (max_position_embeddings in ${path.join(dir, 'config.json')}); give at most 8192`,
    );
  });

  it('is a reason each HTTP engine refuses the recipe with, before anything starts', () => {
    const env = { GATELAB_HOME: mkdtempSync(path.join(tmpdir(), 'gatelab-home-')) };
    const section = { model: dir, max_model_len: 16384, max_lora_rank: 16, tensor_parallel: 1 } as unknown as Parameters<typeof vllmPolicy>[0];
    for (const [engine, build] of [
      ['vllm', () => vllmPolicy(section, (p) => p, { env })],
      ['sglang', () => sglangPolicy(section, (p) => p, { env })],
    ] as const) {
      const reasons = unavailableReasons(build);
      expect(reasons, engine).toContain(
        `policy engine '${engine}': max_model_len 16384 is more than the model's own context of 8192 tokens (max_position_embeddings in ${path.join(dir, 'config.json')}); give at most 8192`,
      );
    }
  });
});
