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

export async function servedModelView(modelDir: string, workDir: string): Promise<string> {
  const config = JSON.parse(await readFile(path.join(modelDir, 'config.json'), 'utf8')) as Record<string, unknown>;
  const quantization = config.quantization_config as { quant_method?: unknown } | undefined;
  if (quantization?.quant_method !== 'gguf') return modelDir;
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
