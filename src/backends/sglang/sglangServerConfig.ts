/**
 * The SGLang server's private config file (`--config`): the per-launch token
 * as SGLang's api key, in a file only this user can read, so no process
 * listing shows it (SGLang reads `api_key` from its arguments or this file;
 * it has no environment variable for it). SGLang turns each key into the
 * flag `--<key>` inside the process, so the key is spelt as the flag is
 * (`api-key`; `api_key` is refused as an unknown `--api_key`).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file's text. A JSON string is a YAML string too, so a token of digits is never read as a number. */
export function sglangServerConfig(apiKey: string): string {
  if (!/^[0-9A-Za-z_-]+$/.test(apiKey)) throw new Error('the SGLang api key must be letters, digits, - or _');
  return `api-key: ${JSON.stringify(apiKey)}\n`;
}

/** Writes `<workDir>/sglang-server.yaml` (mode 600; SGLang wants a .yaml name) and returns its path. */
export async function writeSglangServerConfig(workDir: string, apiKey: string): Promise<string> {
  const file = path.join(workDir, 'sglang-server.yaml');
  await writeFile(file, sglangServerConfig(apiKey), { mode: 0o600 });
  return file;
}
