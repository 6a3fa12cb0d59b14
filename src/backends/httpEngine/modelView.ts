/**
 * The model folder as an HTTP engine (vLLM, SGLang) is given it: a private
 * folder of links to the real files, with a `config.json` that omits
 * `quantization_config` when it names GGUF. SmolLM2's folder is converted from a GGUF (setup:python) and
 * transformers copies the GGUF's quantization note into the saved config,
 * though the saved weights are plain fp32; vLLM refuses a config whose
 * quantization method is `gguf`, and SGLang reads the same config.json to
 * choose its weight loader. The weights the engine reads are the same files
 * (links), so the base's sha256 is unchanged.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

async function readConfig(modelDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path.join(modelDir, 'config.json'), 'utf8')) as Record<string, unknown>;
}

function hasGgufNote(config: Record<string, unknown>): boolean {
  return (config.quantization_config as { quant_method?: unknown } | undefined)?.quant_method === 'gguf';
}

/**
 * Whether the folder's config carries that GGUF note. A server on another
 * machine cannot be given a view made here (no shared filesystem): it reads
 * the model folder at the same path on its node and is told to drop the note
 * (vllmServerArgs' `dropQuantizationNote`, vLLM's --hf-overrides; SGLang engines are not Ray roles).
 */
export async function hasGgufQuantizationNote(modelDir: string): Promise<boolean> {
  return hasGgufNote(await readConfig(modelDir));
}

export async function servedModelView(modelDir: string, workDir: string): Promise<string> {
  const config = await readConfig(modelDir);
  if (!hasGgufNote(config)) return modelDir;
  const view = path.join(workDir, 'model');
  await mkdir(view, { recursive: true });
  for (const name of await readdir(modelDir)) {
    if (name === 'config.json' || name.startsWith('.')) continue;
    await symlink(path.join(modelDir, name), path.join(view, name));
  }
  delete config.quantization_config;
  await writeFile(path.join(view, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return view;
}
