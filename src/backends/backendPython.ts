/**
 * A backend's own Python environment, as its folder describes it in
 * `pythonEnvironment.json` next to its `requirements.txt`. The same file is
 * read by `npm run setup:python` (scripts/setup-python.mjs), which makes the
 * environment at `$GATELAB_HOME/<name>` when asked with `--with-<name>`, and
 * by the lab, which looks for it here without starting anything. Own
 * environments exist because the engines pin torch and transformers versions
 * that the torch trainer's environment cannot also hold.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { gatelabHome, venvInterpreter } from '../processes/python/pythonEnvironment';

export const backendPythonSchema = z.strictObject({
  $comment: z.string().optional(),
  /** The environment's folder under GATELAB_HOME and the setup flag `--with-<name>`. */
  name: z.string().regex(/^[a-z][a-z0-9-]*$/),
  /** How people call it ("vLLM"). */
  title: z.string().min(1),
  /** The top-level Python package the environment must hold. */
  module: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  /** An environment variable that names another interpreter to use instead. */
  interpreterVariable: z.string().regex(/^[A-Z_][A-Z0-9_]*$/),
  /** The exact pins, relative to the backend's folder. */
  requirements: z.string().min(1),
  /** Packages installed after the requirements without their own dependencies (pins pip cannot resolve). */
  noDeps: z.array(z.string().min(1)),
  /** The module the set-up imports to prove the environment works. */
  importCheck: z.string().min(1),
  /** Made only where nvidia-smi finds a GPU (a CUDA-only build). */
  gpuOnly: z.boolean(),
});
export type BackendPython = z.infer<typeof backendPythonSchema>;

type Env = Readonly<Record<string, string | undefined>>;

/** The command that makes the environment, as a person types it. */
export function setupHint(python: BackendPython): string {
  return `\`npm run setup:python -- --with-${python.name}\`${python.gpuOnly ? ' (GPU hosts only)' : ''}`;
}

/** True when the environment's site-packages holds the module's package folder. */
function venvHasModule(interpreter: string, module: string): boolean {
  const venv = path.dirname(path.dirname(interpreter));
  const lib = path.join(venv, 'lib');
  if (!existsSync(lib)) return existsSync(path.join(venv, 'Lib', 'site-packages', module));
  return readdirSync(lib).some((dir) => dir.startsWith('python') && existsSync(path.join(lib, dir, 'site-packages', module)));
}

export type FoundPython = { python: string } | { missing: string };

/**
 * The interpreter that can import the environment's module: the one its
 * interpreter variable names when set, else its own environment under
 * GATELAB_HOME, else the torch trainer's one (which may hold it too).
 */
export function findBackendPython(python: BackendPython, env: Env = process.env): FoundPython {
  const override = env[python.interpreterVariable];
  const candidates = override
    ? [override]
    : [venvInterpreter(path.join(gatelabHome(env), python.name)), venvInterpreter(path.join(gatelabHome(env), 'python'))];
  for (const interpreter of candidates) {
    if (existsSync(interpreter) && venvHasModule(interpreter, python.module)) return { python: interpreter };
  }
  return { missing: `no Python environment with ${python.module} (looked at ${candidates.join(', ')}); it needs ${setupHint(python)}` };
}
