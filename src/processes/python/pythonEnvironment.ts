/**
 * Where GateLab's Python side is on this machine: the virtual environment and
 * the converted models that `npm run setup:python` (scripts/setup-python.mjs)
 * makes under GATELAB_HOME (default ~/.cache/gatelab), and the Python sources
 * of the torch worker. The lab finds them by itself; when something is
 * missing it says so and names the command that makes it — it never installs
 * anything at run time.
 *
 * These paths are a contract with the setup script and the other Python
 * workers (the vLLM engine uses the same environment and model folder): keep
 * them stable.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder name of the offline SmolLM2-135M-Instruct that setup:python converts (under `<home>/models/`). */
export const SMOLLM2_MODEL = 'smollm2-135m-instruct';

/** Python's side is missing or incomplete; the message names `npm run setup:python`. */
export class PythonEnvironmentMissingError extends Error {
  override readonly name = 'PythonEnvironmentMissingError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** GATELAB_HOME, or ~/.cache/gatelab. */
export function gatelabHome(env: Env = process.env): string {
  const fromEnv = env.GATELAB_HOME;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'gatelab');
}

export type PythonEnvironment = {
  home: string;
  /** The virtual environment's folder (`<home>/python`). */
  venv: string;
  /** Its interpreter. */
  python: string;
};

/** A virtual environment's interpreter. */
export function venvInterpreter(venv: string): string {
  return process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
}

/** The venv paths, whether or not they exist. */
export function pythonEnvironmentPaths(env: Env = process.env): PythonEnvironment {
  const home = gatelabHome(env);
  const venv = join(home, 'python');
  return { home, venv, python: venvInterpreter(venv) };
}

/** The venv made by setup:python, complete (its requirements stamp written last); throws PythonEnvironmentMissingError otherwise. */
export function findPythonEnvironment(env: Env = process.env): PythonEnvironment {
  const paths = pythonEnvironmentPaths(env);
  if (!existsSync(paths.python) || !existsSync(join(paths.venv, '.gatelab-requirements.sha256'))) {
    throw new PythonEnvironmentMissingError(
      `GateLab's Python environment is missing or incomplete at ${paths.venv}: run \`npm run setup:python\` (it installs torch, transformers and peft there once)`,
    );
  }
  return paths;
}

/** A model folder that setup:python converted (`<home>/models/<name>`, complete: its stamp written last); throws PythonEnvironmentMissingError otherwise. */
export function findModelFolder(name: string = SMOLLM2_MODEL, env: Env = process.env): string {
  const dir = join(gatelabHome(env), 'models', name);
  if (!existsSync(join(dir, '.gatelab-model.json')) || !existsSync(join(dir, 'config.json'))) {
    throw new PythonEnvironmentMissingError(
      `the model folder ${dir} is missing or incomplete: run \`npm run setup:python\` (it converts ${name} once, offline)`,
    );
  }
  return dir;
}

/** Whether setup:python has run (tests that need Python skip without it; CI runs it). */
export function pythonEnvironmentReady(env: Env = process.env): boolean {
  try {
    findPythonEnvironment(env);
    findModelFolder(SMOLLM2_MODEL, env);
    return true;
  } catch (error) {
    if (error instanceof PythonEnvironmentMissingError) return false;
    throw error;
  }
}

/**
 * The folder to put on PYTHONPATH for `python -m gatelab_torch`: the sources
 * (src/backends/torch) when running from TypeScript, `dist/workers/torch`
 * (copied by the build) when bundled. A path only: the lab never imports
 * electron/workers.
 */
export function torchWorkerSources(selfUrl: string = import.meta.url): string {
  const relative = selfUrl.endsWith('.ts') ? '../../backends/torch' : '../workers/torch';
  const dir = fileURLToPath(new URL(relative, selfUrl));
  if (!existsSync(join(dir, 'gatelab_torch', '__main__.py'))) {
    throw new PythonEnvironmentMissingError(`the torch worker's Python sources are missing at ${dir}`);
  }
  return dir;
}
