import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex, WeightStore } from './weightStore';

const manifest = (step: number) => ({
  kind: 'trainer' as const,
  baseModelSha256: 'b'.repeat(64),
  step,
  dataRange: { sessions: ['s1', 's2'], turns: 2 },
  loss: 0.5,
  lora: { rank: 4, alpha: 8, targets: ['q_proj'] },
});

describe('the content-addressed weight store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gatelab-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names blobs by sha256 and versions v<step>-<8 hex>, with a manifest', async () => {
    const store = new WeightStore(dir);
    const blob = new TextEncoder().encode('adapter bytes');
    const stored = await store.put({ blob, adapterConfig: { peft_type: 'LORA' }, manifest: manifest(3) });
    const sha = sha256Hex(blob);
    expect(stored.sha256).toBe(sha);
    expect(stored.version).toBe(`v3-${sha.slice(0, 8)}`);
    expect(stored.path).toBe(join(dir, 'blobs', `${sha}.safetensors`));
    expect(await readFile(stored.path)).toEqual(Buffer.from(blob));
    expect(await store.hashOfBlob(sha)).toBe(sha);
    const again = await store.get(stored.version);
    expect(again.manifest).toMatchObject({ blobSha256: sha, blobBytes: blob.length, step: 3, baseModelSha256: 'b'.repeat(64), loss: 0.5 });
    expect(await store.list()).toEqual([stored.version]);
    // no temp file is left behind
    expect((await readdir(join(dir, 'blobs'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('stores identical bytes once and lists versions by step', async () => {
    const store = new WeightStore(dir);
    const a = await store.put({ blob: new Uint8Array([1, 2, 3]), adapterConfig: {}, manifest: manifest(2) });
    const b = await store.put({ blob: new Uint8Array([1, 2, 3]), adapterConfig: {}, manifest: manifest(10) });
    const c = await store.put({ blob: new Uint8Array([9]), adapterConfig: {}, manifest: manifest(1) });
    expect(a.path).toBe(b.path);
    expect(await readdir(join(dir, 'blobs'))).toHaveLength(2);
    expect(await store.list()).toEqual([c.version, a.version, b.version]);
  });

  it('a version without a manifest (a crash before its last write) is not listed', async () => {
    const store = new WeightStore(dir);
    const stored = await store.put({ blob: new Uint8Array([7]), adapterConfig: {}, manifest: manifest(1) });
    await rm(stored.manifestPath);
    expect(await store.list()).toEqual([]);
    await expect(store.get(stored.version)).rejects.toThrow(/cannot read/);
  });

  it('exports a directory PEFT can load', async () => {
    const store = new WeightStore(dir);
    const stored = await store.put({ blob: new Uint8Array([5, 6]), adapterConfig: { r: 4 }, manifest: manifest(1) });
    const target = join(dir, 'peft');
    await store.exportPeftDirectory(stored.version, target);
    expect((await readdir(target)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
  });

  it('refuses malformed ids', () => {
    const store = new WeightStore(dir);
    expect(() => store.blobPath('../etc')).toThrow(/not a sha256/);
    expect(() => store.versionDir('v1-../../x')).toThrow(/not a version id/);
  });
  it('keeps a trainer checkpoint beside its version, checked on read, and prunes the ones a resume no longer needs', async () => {
    const store = new WeightStore(dir);
    const state = new Uint8Array([1, 2, 3, 4]);
    const first = await store.putCheckpoint('v1-0000aaaa', { step: 1, format: 'test/1', files: new Map([['state.bin', state]]) });
    expect(first).toBe(store.checkpointDir('v1-0000aaaa'));
    await store.putCheckpoint('v2-0000bbbb', { step: 2, format: 'test/1', files: new Map([['state.bin', new Uint8Array([5])]]) });
    const read = await store.getCheckpoint('v1-0000aaaa');
    expect(read?.manifest).toMatchObject({ version: 'v1-0000aaaa', step: 1, format: 'test/1', files: { 'state.bin': { sha256: sha256Hex(state), bytes: 4 } } });
    expect(read?.files.get('state.bin')).toEqual(Buffer.from(state));
    expect(await store.getCheckpoint('v3-0000cccc')).toBeNull();
    // A damaged file is refused, not restored from.
    await writeFile(join(store.checkpointDir('v1-0000aaaa'), 'state.bin'), new Uint8Array([9, 9, 9, 9]));
    await expect(store.getCheckpoint('v1-0000aaaa')).rejects.toThrow(/does not match its recorded sha256/);
    await expect(store.putCheckpoint('v4-0000dddd', { step: 4, format: 'test/1', files: new Map([['../escape', state]]) })).rejects.toThrow(
      /not a checkpoint file name/,
    );
    await store.pruneCheckpoints(['v2-0000bbbb']);
    expect(await readdir(join(dir, 'checkpoints'))).toEqual(['v2-0000bbbb']);
  });
});
