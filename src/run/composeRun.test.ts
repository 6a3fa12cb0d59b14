import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseRecipe } from '../core/recipe/loadRecipe';
import type { HostGpus } from '../processes/devices/hostGpus';
import { BackendUnavailableError } from '../backends/backendUnavailable';
import { embeddedRecipe } from '../../tests/helpers/testRecipe';
import { composeServing, reasonsNotRunnable } from './composeRun';

const noGpu: HostGpus = { gpus: [], problem: 'nvidia-smi was not found' };
const oneGpu: HostGpus = { gpus: [{ index: 0, name: 'NVIDIA H100', memoryTotalMiB: 81559, memoryUsedMiB: 0 }], problem: null };

/** The embedded recipe with some of its values replaced, read with the core's loose backend sections. */
async function embeddedWith(changes: [(string | number)[], unknown][]) {
  const doc = parseDocument(await readFile(embeddedRecipe, 'utf8'));
  for (const [at, value] of changes) doc.setIn(at, value);
  return parseRecipe(doc.toString(), 'changed.yaml');
}

const sglangPolicy = { kind: 'sglang', model: 'HuggingFaceTB/SmolLM2-135M-Instruct', sampling: { max_tokens: 64 } };

describe('the composition root builds from the backend registry', () => {
  it('refuses a backend section its kind does not accept, naming the field, though the recipe was read loosely', async () => {
    const recipe = await embeddedWith([[['policy', 'model_dri'], 'x']]);
    expect(reasonsNotRunnable(recipe, noGpu)).toEqual(['recipe policy.model_dri: Unrecognized key: "model_dri"']);
  });

  it("refuses a trainer that cannot train the policy's model, naming one that can", async () => {
    const recipe = await embeddedWith([[['trainer', 'kind'], 'torch']]);
    expect(reasonsNotRunnable(recipe, noGpu)).toContain(
      "the trainer 'torch' trains huggingface models; the policy engine 'embedded' serves a model in the embedded-onnx format (trainer kind 'embedded' trains it)",
    );
  });

  it('refuses an engine that needs a GPU on a role the device map puts on the CPU', async () => {
    const recipe = await embeddedWith([
      [['policy'], sglangPolicy],
      [['trainer', 'kind'], 'torch'],
      [['devices', 'serving'], 'cpu'],
    ]);
    const reasons = reasonsNotRunnable(recipe, oneGpu);
    expect(reasons).toContain("role serving is on the CPU, and the policy engine 'sglang' needs a GPU: give it one in devices");
    expect(reasons).toContain("role probe is on the CPU, and the policy engine 'sglang' needs a GPU: give it one in devices");
  });

  it('checks the serving part alone the same way', () => {
    const refusal = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        if (error instanceof BackendUnavailableError) return error.reasons;
        throw error;
      }
      return [];
    };
    const sampling = { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 64 };
    expect(refusal(() => composeServing({ kind: 'llamacpp', sampling, logprobs_top_k: 4 }, { resolvePath: (p) => p, host: noGpu, device: 'cpu' }))).toEqual([
      "this build has no policy engine of kind 'llamacpp' (it has 'embedded', 'vllm', 'sglang')",
    ]);
    expect(refusal(() => composeServing({ kind: 'embedded', sampling, logprobs_top_k: 4 }, { resolvePath: (p) => p, host: noGpu, device: 'cpu' }))).toEqual([
      'policy.model_dir: missing (expected string)',
    ]);
  });
});
