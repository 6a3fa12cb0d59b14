import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadRecipe, parseRecipe, RecipeError } from './loadRecipe';
import { recipeJsonSchemaText, recipeSchemaFile } from '../../run/recipeJsonSchema';
import { reasonsNotRunnable } from '../../run/runnability';

const recipesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../recipes');
const embeddedFile = path.join(recipesDir, 'embedded-gsm8k-style.yaml');
const reefFile = path.join(recipesDir, 'reef-openclawrl-7gpu.yaml');

function refusal(source: string): RecipeError {
  try {
    parseRecipe(source, 'bad.yaml');
  } catch (error) {
    if (error instanceof RecipeError) return error;
    throw error;
  }
  throw new Error('the recipe was accepted');
}

describe('recipes', () => {
  it('the committed JSON Schema is the one generated from the zod schema', async () => {
    expect(await readFile(recipeSchemaFile, 'utf8')).toBe(recipeJsonSchemaText());
  });

  it('the embedded recipe is the miniature of Reef openclawrl and runs on a CPU-only host', async () => {
    const { recipe } = await loadRecipe(embeddedFile);
    expect(recipe.tasks.sessions).toBe(72);
    expect(recipe.session.max_turns).toBe(8);
    expect(recipe.student.kind).toBe('scripted');
    expect(recipe.judge.prm.kind).toBe('rule');
    expect(recipe.trainer.kind).toBe('embedded');
    expect(recipe.gate.rounds).toBe(3);
    expect(recipe.gate.confirm).toBe('manual');
    // All on the CPU; serving yields the shared cores to the trainer and the probe engine.
    expect(recipe.devices).toEqual({ serving: { cpu: { nice: 10 } }, probe: 'cpu', trainer: 'cpu', prm: 'cpu', student: 'cpu' });
    expect(reasonsNotRunnable(recipe, { gpus: [], problem: 'nvidia-smi was not found' })).toEqual([]);
  });

  it('the seven-GPU Reef recipe validates and says why it cannot run here', async () => {
    const { recipe } = await loadRecipe(reefFile);
    expect(recipe.devices.trainer).toEqual({ gpus: [1, 2, 3, 4] });
    const reasons = reasonsNotRunnable(recipe, { gpus: [], problem: 'nvidia-smi was not found (no NVIDIA driver)' });
    expect(reasons[0]).toBe('role serving asks for GPU 5; this host has no GPU (nvidia-smi was not found (no NVIDIA driver))');
    expect(reasons).toContain('role trainer asks for GPUs 1–4; this host has no GPU (nvidia-smi was not found (no NVIDIA driver))');
    expect(reasons.join('\n')).toMatch(/policy engine 'vllm': (no Python environment with vllm|model Qwen\/Qwen3-4B-Thinking-2507 is not on this machine)/);
    // The torch trainer is built: at most it asks for `npm run setup:python`, never 'not built'.
    expect(reasons.join('\n')).not.toMatch(/trainer 'torch' .* is not built/);
    // With eight GPUs the device complaints go away, the missing backends stay.
    const eight = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H200', memoryTotalMiB: 143771, memoryUsedMiB: 0 }));
    expect(reasonsNotRunnable(recipe, { gpus: eight, problem: null }).join('\n')).not.toMatch(/asks for GPU/);
  });

  it('the one-GPU Reef variant and the SmolLM2 CPU recipe validate; on a host without a GPU the one-GPU variant names it', async () => {
    const { recipe: oneGpu } = await loadRecipe(path.join(recipesDir, 'reef-openclawrl-1gpu.yaml'));
    expect([oneGpu.devices.serving, oneGpu.devices.probe, oneGpu.devices.trainer]).toEqual([{ gpus: [0] }, { gpus: [0] }, { gpus: [0] }]);
    expect(oneGpu.policy).toMatchObject({ kind: 'vllm', gpu_memory_utilization: 0.2 });
    const reasons = reasonsNotRunnable(oneGpu, { gpus: [], problem: 'nvidia-smi was not found (no NVIDIA driver)' });
    expect(reasons).toContain('role serving asks for GPU 0; this host has no GPU (nvidia-smi was not found (no NVIDIA driver))');
    const { recipe: smollm2 } = await loadRecipe(path.join(recipesDir, 'smollm2-135m-cpu.yaml'));
    expect(smollm2).toMatchObject({ policy: { kind: 'vllm' }, trainer: { kind: 'torch' }, student: { kind: 'scripted' }, tasks: { sessions: 36 } });
    expect(smollm2.gate.floors).toEqual({ gold_rate: 0, answered_rate: 0.5 });
  });

  it('refuses a wrong type with the file, the line and the field', async () => {
    const source = (await readFile(embeddedFile, 'utf8')).replace('rounds: 3 ', 'rounds: three ');
    const error = refusal(source);
    const line = source.split('\n').findIndex((l) => l.includes('rounds: three')) + 1;
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ field: 'gate.rounds', line });
    expect(error.message).toContain(`bad.yaml:${line}:`);
  });

  it('refuses a misspelt key at its own line', async () => {
    const source = (await readFile(embeddedFile, 'utf8')).replace('max_update_norm:', 'max_update_nrom:');
    const error = refusal(source);
    const line = source.split('\n').findIndex((l) => l.includes('max_update_nrom')) + 1;
    const unknown = error.problems.find((p) => p.field === 'gate.max_update_nrom');
    expect(unknown?.line).toBe(line);
    // and the real key is now missing
    expect(error.problems.some((p) => p.field === 'gate.max_update_norm')).toBe(true);
  });

  it('refuses a nested out-of-range value inside a flow mapping', async () => {
    const source = (await readFile(embeddedFile, 'utf8')).replace('top_p: 0.95, top_k: 20, max_tokens: 384', 'top_p: 1.5, top_k: 20, max_tokens: 384');
    const error = refusal(source);
    const line = source.split('\n').findIndex((l) => l.includes('top_p: 1.5')) + 1;
    expect(error.problems[0]).toMatchObject({ field: 'gate.probe.sampling.top_p', line });
  });

  it('takes a nice value only for roles with a worker process, and only one that lowers priority', async () => {
    const source = await readFile(embeddedFile, 'utf8');
    const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    const raised = source.replace('nice: 10', 'nice: -5');
    expect(refusal(raised).problems[0]).toMatchObject({ field: 'devices.serving.cpu.nice', line: lineOf(raised, 'nice: -5') });
    const onPrm = source.replace(/^( {2}prm:) cpu$/m, '$1 { cpu: { nice: 5 } }');
    expect(onPrm).not.toBe(source);
    expect(refusal(onPrm).problems[0]).toMatchObject({ field: 'devices.prm', line: lineOf(onPrm, 'prm: { cpu'), message: /serving, probe and trainer only/ });
  });

  it('refuses a training window smaller than the batch', async () => {
    const source = (await readFile(embeddedFile, 'utf8')).replace('window_turns: 16', 'window_turns: 2');
    expect(refusal(source).problems[0]).toMatchObject({ field: 'trainer.window_turns', message: /at least batch_turns/ });
  });

  it('refuses broken YAML with its line', () => {
    const error = refusal('name: x\nseed: [1, 2\ntasks: {}\n');
    expect(error.problems[0]?.message).toMatch(/^YAML:/);
    expect(error.problems[0]?.line).toBeGreaterThanOrEqual(2);
  });

  it('names a missing file', async () => {
    await expect(loadRecipe(path.join(recipesDir, 'nope.yaml'))).rejects.toThrow(/nope\.yaml.*cannot read/s);
  });
});
