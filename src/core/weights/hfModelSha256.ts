/**
 * The identity of a Hugging Face model folder: the sha256 of its weights.
 * One `model.safetensors`: that file's sha256 (what `sha256sum` prints, and
 * what `npm run setup:python`'s model stamp records). Sharded weights: the
 * sha256 of the shards' `<name> <sha256>` lines in name order. Hashed once
 * per file and process (keyed by path, size and mtime): a 538 MB file takes
 * seconds on a loaded CPU.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256OfFile } from './adapterBlob';

const cache = new Map<string, Promise<string>>();

async function cachedFileSha256(file: string): Promise<string> {
  const info = await stat(file);
  const key = `${file}\0${info.size}\0${info.mtimeMs}`;
  let hash = cache.get(key);
  if (!hash) {
    hash = sha256OfFile(file);
    cache.set(key, hash);
    hash.catch(() => cache.delete(key));
  }
  return hash;
}

export async function hfModelSha256(modelDir: string): Promise<string> {
  const files = (await readdir(modelDir)).filter((name) => name.endsWith('.safetensors')).sort();
  if (files.length === 0) throw new Error(`${modelDir} holds no *.safetensors weights`);
  if (files.length === 1 && files[0] === 'model.safetensors') return cachedFileSha256(path.join(modelDir, 'model.safetensors'));
  const lines: string[] = [];
  for (const name of files) lines.push(`${name} ${await cachedFileSha256(path.join(modelDir, name))}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}
