/**
 * Where the lab finds the model folder a recipe's `policy.model` names for an
 * HTTP engine (vLLM, SGLang), without starting anything; a missing one comes
 * back as a sentence a person can act on. (The engine's Python environment is
 * the backend's own: backendPython.ts.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findModelFolder as findConvertedModel, gatelabHome, PythonEnvironmentMissingError } from '../../processes/python/pythonEnvironment';

export type ModelFolder = { modelDir: string } | { missing: string };

/**
 * The model folder for `policy.model`: a local path (relative to the recipe)
 * when it exists, else `$GATELAB_HOME/models/<name>` where name is the model
 * id's last part in lower case (HuggingFaceTB/SmolLM2-135M-Instruct →
 * smollm2-135m-instruct, the folder `npm run setup:python` makes). The lab
 * never downloads a model itself.
 */
export function findModelFolder(
  model: string,
  resolvePath: (p: string) => string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ModelFolder {
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
