// `runner: ray` in a recipe: parsed with its defaults, refused with the
// field named, placed by the composition root (Ray roles get a launcher and
// are not checked against this host's GPUs), and the entrypoint quoting.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { composeRun, reasonsNotRunnable } from '../../run/composeRun';
import { loadRecipe, parseRecipe, RecipeError } from '../../core/recipe/loadRecipe';
import { shellCommandLine, shellQuote } from './shellQuote';
import { rayPlacement } from './rayPlacement';
import { torchTrainerArgs } from '../../backends/torch/torchTrainer';
import { execFileSync } from 'node:child_process';

const recipesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../recipes');
const embeddedFile = path.join(recipesDir, 'embedded-gsm8k-style.yaml');

async function embeddedWith(runner: unknown, devices?: Record<string, unknown>): Promise<string> {
  const doc = parseDocument(await readFile(embeddedFile, 'utf8'));
  doc.setIn(['runner'], runner);
  for (const [role, device] of Object.entries(devices ?? {})) doc.setIn(['devices', role], device);
  return doc.toString();
}

describe('runner in the recipe', () => {
  it('defaults to local; ray takes the dashboard address and fills in its defaults', async () => {
    const { recipe } = await loadRecipe(embeddedFile);
    expect(recipe.runner).toBe('local');
    const parsed = parseRecipe(await embeddedWith({ kind: 'ray', address: 'http://10.0.0.10:8265', roles: { trainer: {} } }), 'r.yaml');
    expect(parsed.runner).toEqual({
      kind: 'ray',
      address: 'http://10.0.0.10:8265',
      python: 'python3',
      control: { bind: '127.0.0.1', port: 0 },
      roles: { trainer: { num_cpus: 1 } },
      env: {},
    });
  });

  it('refuses a bad runner naming the field', async () => {
    const problems = (source: string) => {
      try {
        parseRecipe(source, 'r.yaml');
      } catch (error) {
        if (error instanceof RecipeError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(problems(await embeddedWith({ kind: 'ray', address: 'not a url', roles: { trainer: {} } }))).toMatch(/runner/);
    expect(problems(await embeddedWith({ kind: 'ray', address: 'http://h:8265', roles: {} }))).toMatch(/at least one role/);
    expect(problems(await embeddedWith({ kind: 'ray', address: 'http://h:8265', roles: { prm: {} } }))).toMatch(/runner/);
    expect(problems(await embeddedWith({ kind: 'ray', address: 'http://h:8265', roles: { trainer: { num_gpus: -1 } } }))).toMatch(/runner/);
  });

  it('the composition root gives Ray roles a launcher and checks only the local roles against this host', async () => {
    const source = await embeddedWith(
      { kind: 'ray', address: 'http://127.0.0.1:1', roles: { trainer: { num_cpus: 2 }, probe: {} } },
      { trainer: { gpus: [0, 1] } },
    );
    const recipe = parseRecipe(source, 'r.yaml');
    // The trainer's GPUs are on a cluster node, not here: no host problem.
    expect(reasonsNotRunnable(recipe, { gpus: [], problem: null })).toEqual([]);
    const backends = composeRun(recipe, { resolvePath: (p) => path.resolve(recipesDir, p), host: { gpus: [], problem: null } });
    const trainer = backends.placement('trainer');
    expect(trainer.launch).toBeTypeOf('function');
    // Ray sets CUDA_VISIBLE_DEVICES for a job with GPUs: the lab does not.
    expect(trainer.env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(backends.placement('probe').env.CUDA_VISIBLE_DEVICES).toBe('');
    expect(backends.placement('serving').launch).toBeUndefined();
    // A local role's GPUs are still checked here.
    const local = parseRecipe(await embeddedWith({ kind: 'ray', address: 'http://h:8265', roles: { trainer: {} } }, { probe: { gpus: [3] } }), 'r.yaml');
    expect(reasonsNotRunnable(local, { gpus: [], problem: null })).toEqual([expect.stringMatching(/role probe asks for GPU 3/)]);
  });

  it('torchrun in a Ray job runs one process per GPU the job reserves on its node', () => {
    const runner = {
      kind: 'ray' as const,
      address: 'http://h:8265',
      python: 'python3',
      control: { bind: '127.0.0.1', port: 0 },
      roles: { trainer: { num_cpus: 8, num_gpus: 4 } },
      env: {},
    };
    const placement = rayPlacement(runner, 'trainer', 'cpu');
    expect(placement.gpus).toEqual([]);
    expect(placement.remoteGpuCount).toBe(4);
    expect(torchTrainerArgs('torchrun', placement)).toContain('--nproc-per-node=4');
    // Without num_gpus, the device map's GPU count is what the job reserves.
    const fromMap = rayPlacement({ ...runner, roles: { trainer: { num_cpus: 1 } } }, 'trainer', { gpus: [1, 2] });
    expect(fromMap.remoteGpuCount).toBe(2);
    expect(fromMap.env.CUDA_VISIBLE_DEVICES).toBeUndefined();
  });

  it('the Ray variant of Reef places the trainer on the cluster; a vLLM engine may be a Ray role, an SGLang one is refused, naming the role', async () => {
    const { recipe } = await loadRecipe(path.join(recipesDir, 'reef-openclawrl-ray.yaml'));
    const eightGpus = { gpus: Array.from({ length: 8 }, (_, index) => ({ index, name: 'GPU', memoryTotalMiB: 80_000, memoryUsedMiB: 0 })), problem: null };
    // The trainer asks for 4 GPUs on its node; this host is only checked for serving (0) and probe (1).
    const onTwo = reasonsNotRunnable(recipe, { gpus: eightGpus.gpus.slice(0, 2), problem: null });
    expect(onTwo.some((r) => /role (trainer|serving|probe) asks/.test(r))).toBe(false);
    const engines = {
      ...recipe,
      runner: recipe.runner === 'local' ? recipe.runner : { ...recipe.runner, roles: { ...recipe.runner.roles, serving: { num_cpus: 1 } } },
    };
    expect(reasonsNotRunnable(engines, eightGpus).filter((r) => /runner\.roles/.test(r))).toEqual([]);
    if (engines.policy.kind !== 'vllm') throw new Error('the Ray variant of Reef serves with vLLM');
    const sglang = { ...engines, policy: { ...engines.policy, kind: 'sglang' as const } };
    expect(reasonsNotRunnable(sglang, eightGpus)).toContain('runner.roles.serving: an sglang engine as a Ray job is not built yet; run serving on this host');
    // An engine role's placement carries a server host (the tunnel to its node); the trainer's does not.
    if (engines.runner === 'local') throw new Error('a Ray recipe');
    expect(rayPlacement(engines.runner, 'serving', 'cpu').serverHost).toBeTypeOf('function');
    expect(rayPlacement(engines.runner, 'trainer', 'cpu').serverHost).toBeUndefined();
  });
});

describe('the entrypoint line Ray hands a shell', () => {
  it('quotes every argument so that the shell sees exactly the array', () => {
    const argv = ['/opt/py thon/bin/python', '-c', "import os;exec(os.environ['X'])", 'it\'s $HOME `id` "q" \\n;|&'];
    const line = shellCommandLine(argv);
    const seen = execFileSync('/bin/sh', ['-c', `for a in ${line}; do printf '%s\\0' "$a"; done`])
      .toString()
      .split('\0')
      .slice(0, -1);
    expect(seen).toEqual(argv);
    expect(shellQuote('')).toBe("''");
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });
});
