/**
 * Checks that an adapter blob is what the serving pointer says it is before
 * anything is asked to serve it (docs/design.md, invariant 2; the engine re-checks).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { AdapterRef } from '../protocols/engineProtocol';
import { SHA256_PATTERN } from './weightIds';

export const BASE_VERSION = 'base';

/**
 * A version id is `v<step>-<first 8 hex of sha256>` (docs/internals.md); other
 * producers (e.g. injected candidates) use another prefix, same suffix.
 */
const versionIdPattern = /^([a-z0-9]+)-([0-9a-f]{8})$/;
const sha256Pattern = SHA256_PATTERN;

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Throws a message a person can act on when the ref is malformed or the bytes do not match. */
export async function verifyAdapterBlob(adapter: AdapterRef): Promise<void> {
  if (!sha256Pattern.test(adapter.sha256)) {
    throw new Error(`adapter ${adapter.version}: sha256 ${JSON.stringify(adapter.sha256)} is not 64 lowercase hex digits`);
  }
  const match = versionIdPattern.exec(adapter.version);
  if (!match || match[2] !== adapter.sha256.slice(0, 8)) {
    throw new Error(
      `adapter version ${JSON.stringify(adapter.version)} does not name sha256 ${adapter.sha256.slice(0, 8)}… (expected <prefix>-${adapter.sha256.slice(0, 8)})`,
    );
  }
  let actual: string;
  try {
    actual = await sha256OfFile(adapter.path);
  } catch (error) {
    throw new Error(`adapter ${adapter.version}: cannot read ${adapter.path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (actual !== adapter.sha256) {
    throw new Error(`adapter ${adapter.version}: ${adapter.path} hashes to ${actual}, the pointer says ${adapter.sha256}`);
  }
}
