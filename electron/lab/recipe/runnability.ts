// Whether a valid recipe can run on this host, and if not, why — in words a
// person can act on. A recipe can be valid (it describes Reef's seven-GPU
// layout correctly) and still not runnable here.
import { spawnSync } from 'node:child_process';
import type { WorkerDevice, Recipe } from './recipeSchema';

export type HostFacts = { gpuCount: number };

/** Counts NVIDIA GPUs with `nvidia-smi -L` (argument array, no shell); 0 when absent. */
export function probeHost(): HostFacts {
  const out = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8', timeout: 5000 });
  if (out.status !== 0 || typeof out.stdout !== 'string') return { gpuCount: 0 };
  return { gpuCount: out.stdout.split('\n').filter((l) => l.startsWith('GPU ')).length };
}

function gpusOf(device: WorkerDevice): number[] {
  return typeof device === 'object' && 'gpus' in device ? device.gpus : [];
}

/** Every reason the recipe cannot run on this host; empty when it can. */
export function reasonsNotRunnable(recipe: Recipe, host: HostFacts): string[] {
  const reasons: string[] = [];
  const roles = Object.entries(recipe.devices) as [keyof Recipe['devices'], WorkerDevice][];
  const wanted = [...new Set(roles.flatMap(([, d]) => gpusOf(d)))].sort((a, b) => a - b);
  const missing = wanted.filter((g) => g >= host.gpuCount);
  if (missing.length > 0) {
    const who = roles
      .filter(([, d]) => gpusOf(d).some((g) => missing.includes(g)))
      .map(([role, d]) => `${role} on GPU ${gpusOf(d).join(',')}`)
      .join('; ');
    reasons.push(
      `needs GPU ${missing.join(', ')} but this host has ${host.gpuCount} GPU(s) (${who})`,
    );
  }
  if (recipe.policy.kind !== 'embedded') {
    reasons.push(
      `policy engine '${recipe.policy.kind}' (${recipe.policy.model}) runs as an external server on a GPU host; ` +
        'this build runs the embedded onnxruntime engine only',
    );
  }
  if (recipe.trainer.kind !== 'embedded') {
    reasons.push(
      `trainer '${recipe.trainer.kind}' (launcher ${recipe.trainer.launcher}) needs the Python GPU trainer with CUDA; ` +
        'this build runs the embedded TypeScript trainer only',
    );
  }
  if (recipe.student.kind !== 'scripted') {
    reasons.push(
      `student '${recipe.student.kind}' (${recipe.student.endpoint.model} at ${recipe.student.endpoint.base_url}): ` +
        "this build's session loop drives the scripted student only",
    );
  }
  // An LLM PRM or hint judge is supported (electron/lab/judge/llmJudge.ts); it
  // only needs its endpoint to answer, which the first judged turn checks.
  if (recipe.tasks.source === 'gsm8k-file' && recipe.policy.kind === 'embedded') {
    reasons.push('the embedded policy was built for the embedded homework; GSM8K text is outside its vocabulary');
  }
  return reasons;
}
