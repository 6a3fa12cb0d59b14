/**
 * The run's content-addressed weight store (`runs/<id>/weights/`,
 * docs/internals.md "Candidates and the weight store"):
 *
 *   blobs/<sha256>.safetensors            the adapter bytes, named by their hash
 *   versions/<version>/adapter_config.json PEFT's config
 *   versions/<version>/manifest.json       base hash, step, data range, loss, blob hash
 *   checkpoints/<version>/checkpoint.json  the trainer's state saved with a candidate (its other files beside it)
 *
 * (The layout, every manifest field and the checkpoint's are specified for
 * trainers in any language in src/core/protocols/trainerProtocol.ts.)
 *
 * A version id is `v<step>-<first 8 hex of the blob's sha256>`. Every file is
 * written to a temporary name, fsynced and renamed, and the manifest is
 * written last: a version whose manifest exists is complete, and a crash at
 * any instant leaves at worst an orphan temp file or blob, never a torn one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { checkpointManifestSchema, type CheckpointManifest } from '../protocols/trainerProtocol';
import { CANDIDATE_VERSION_PATTERN, SHA256_PATTERN } from './weightIds';

const sha256Pattern = SHA256_PATTERN;
const versionPattern = CANDIDATE_VERSION_PATTERN;

export const candidateManifestSchema = z.strictObject({
  /** `v<step>-<first 8 hex of blobSha256>`; the folder's name. */
  version: z.string().regex(versionPattern),
  kind: z.enum(['trainer', 'injected']).describe('trainer = produced by an optimizer step; injected = a deliberately bad candidate'),
  /** What was injected or how it was made (e.g. "reward-inverted"); free text. */
  note: z.string().optional(),
  /** sha256 (lowercase hex) of blobs/<blobSha256>.safetensors. */
  blobSha256: z.string().regex(sha256Pattern),
  blobBytes: z.int().positive(),
  /** The run's base (run-started.baseVersion.sha256; the trainer's init.baseSha256). */
  baseModelSha256: z.string().regex(sha256Pattern),
  /** Optimizer steps behind the adapter (0 for an adapter not made by steps). */
  step: z.int().min(0),
  /** The judged turns the candidate was trained on (session ids, first seen first), cumulative over its steps; turns = samples summed over steps. */
  dataRange: z.object({ sessions: z.array(z.string()), turns: z.int().min(0) }),
  /** The last step's loss; null when there is none. */
  loss: z.number().nullable(),
  /** The adapter's LoRA: rank, alpha, PEFT target_modules. */
  lora: z.object({ rank: z.int().positive(), alpha: z.number().positive(), targets: z.array(z.string()).min(1) }),
  /** ISO 8601. */
  createdAt: z.string(),
});
export type CandidateManifest = z.infer<typeof candidateManifestSchema>;

export interface StoredCandidate {
  readonly version: string;
  readonly sha256: string;
  /** The blob; what the engine's setAdapter reads (`{ version, sha256, path }`). */
  readonly path: string;
  readonly manifestPath: string;
  readonly manifest: CandidateManifest;
}

/** The file that completes a checkpoint folder. */
export const CHECKPOINT_MANIFEST = 'checkpoint.json';

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function versionId(step: number, sha256: string): string {
  return `v${step}-${sha256.slice(0, 8)}`;
}

async function writeFileAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class WeightStore {
  constructor(readonly root: string) {}

  blobPath(sha256: string): string {
    if (!sha256Pattern.test(sha256)) throw new Error(`not a sha256: ${JSON.stringify(sha256)}`);
    return join(this.root, 'blobs', `${sha256}.safetensors`);
  }

  versionDir(version: string): string {
    if (!versionPattern.test(version)) throw new Error(`not a version id: ${JSON.stringify(version)}`);
    return join(this.root, 'versions', version);
  }

  /** Stores an adapter; the same bytes at the same step give the same version (idempotent). */
  async put(input: {
    readonly blob: Uint8Array;
    readonly adapterConfig: object;
    readonly manifest: Omit<CandidateManifest, 'version' | 'blobSha256' | 'blobBytes' | 'createdAt'>;
  }): Promise<StoredCandidate> {
    const sha256 = sha256Hex(input.blob);
    const version = versionId(input.manifest.step, sha256);
    const blobPath = this.blobPath(sha256);
    const dir = this.versionDir(version);
    await mkdir(join(this.root, 'blobs'), { recursive: true });
    await mkdir(dir, { recursive: true });
    const existing = await stat(blobPath).catch(() => null);
    if (existing === null) {
      await writeFileAtomic(blobPath, input.blob);
      await syncDirectory(join(this.root, 'blobs'));
    }
    const manifest = candidateManifestSchema.parse({
      ...input.manifest,
      version,
      blobSha256: sha256,
      blobBytes: input.blob.byteLength,
      createdAt: new Date().toISOString(),
    });
    await writeFileAtomic(join(dir, 'adapter_config.json'), `${JSON.stringify(input.adapterConfig, null, 2)}\n`);
    const manifestPath = join(dir, 'manifest.json');
    await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    await syncDirectory(dir);
    return { version, sha256, path: blobPath, manifestPath, manifest };
  }

  /** A complete version's manifest (validated), or an error naming what is wrong. */
  async get(version: string): Promise<StoredCandidate> {
    const manifestPath = join(this.versionDir(version), 'manifest.json');
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(manifestPath, 'utf8'));
    } catch (error) {
      throw new Error(`version ${version}: cannot read ${manifestPath}: ${(error as Error).message}`, { cause: error });
    }
    const manifest = candidateManifestSchema.parse(raw);
    if (manifest.version !== version) throw new Error(`version ${version}: its manifest names ${manifest.version}`);
    return { version, sha256: manifest.blobSha256, path: this.blobPath(manifest.blobSha256), manifestPath, manifest };
  }

  /** Complete versions (manifest present), oldest step first. */
  async list(): Promise<string[]> {
    const names = await readdir(join(this.root, 'versions')).catch(() => [] as string[]);
    const complete: string[] = [];
    for (const name of names) {
      if (!versionPattern.test(name)) continue;
      if (await stat(join(this.root, 'versions', name, 'manifest.json')).catch(() => null)) complete.push(name);
    }
    const stepOf = (v: string) => Number(versionPattern.exec(v)?.[1] ?? 0);
    return complete.sort((a, b) => stepOf(a) - stepOf(b) || (a < b ? -1 : 1));
  }

  /**
   * Stores a version another machine made (a remote trainer's candidate, by
   * content): every byte is checked before anything is written — the blob
   * against the manifest's sha256 and size, the version id against both, the
   * checkpoint's files against its manifest — then written like `put`
   * (temp + fsync + rename), the checkpoint before the manifest, the manifest
   * last. Idempotent for the same bytes.
   */
  async importVersion(input: {
    readonly blob: Uint8Array;
    readonly adapterConfig: Uint8Array;
    readonly manifest: Uint8Array;
    readonly checkpoint?: { readonly manifest: Uint8Array; readonly files: ReadonlyMap<string, Uint8Array> };
  }): Promise<StoredCandidate> {
    const manifest = candidateManifestSchema.parse(JSON.parse(Buffer.from(input.manifest).toString('utf8')));
    const sha256 = sha256Hex(input.blob);
    if (manifest.blobSha256 !== sha256)
      throw new Error(`version ${manifest.version}: the blob's sha256 is ${sha256}, its manifest says ${manifest.blobSha256}`);
    if (manifest.blobBytes !== input.blob.byteLength)
      throw new Error(`version ${manifest.version}: the blob has ${input.blob.byteLength} bytes, its manifest says ${manifest.blobBytes}`);
    if (manifest.version !== versionId(manifest.step, sha256)) throw new Error(`version ${manifest.version} is not v${manifest.step}-${sha256.slice(0, 8)}`);
    const config: unknown = JSON.parse(Buffer.from(input.adapterConfig).toString('utf8'));
    if (typeof config !== 'object' || config === null || Array.isArray(config))
      throw new Error(`version ${manifest.version}: adapter_config.json is not a JSON object`);
    let checkpoint: CheckpointManifest | undefined;
    if (input.checkpoint) {
      checkpoint = checkpointManifestSchema.parse(JSON.parse(Buffer.from(input.checkpoint.manifest).toString('utf8')));
      if (checkpoint.version !== manifest.version) throw new Error(`checkpoint ${manifest.version}: its manifest names ${checkpoint.version}`);
      const names = Object.keys(checkpoint.files);
      if (names.length !== input.checkpoint.files.size)
        throw new Error(`checkpoint ${manifest.version}: ${input.checkpoint.files.size} files arrived, its manifest lists ${names.length}`);
      for (const [name, expected] of Object.entries(checkpoint.files)) {
        const bytes = input.checkpoint.files.get(name);
        if (name === CHECKPOINT_MANIFEST || !/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`not a checkpoint file name: ${JSON.stringify(name)}`);
        if (!bytes || sha256Hex(bytes) !== expected.sha256 || bytes.byteLength !== expected.bytes) {
          throw new Error(`checkpoint ${manifest.version}: ${name} does not match its recorded sha256 and size`);
        }
      }
    }
    const blobPath = this.blobPath(sha256);
    const dir = this.versionDir(manifest.version);
    await mkdir(join(this.root, 'blobs'), { recursive: true });
    await mkdir(dir, { recursive: true });
    if ((await stat(blobPath).catch(() => null)) === null) {
      await writeFileAtomic(blobPath, input.blob);
      await syncDirectory(join(this.root, 'blobs'));
    }
    await writeFileAtomic(join(dir, 'adapter_config.json'), input.adapterConfig);
    if (input.checkpoint && checkpoint) {
      const checkpointDir = this.checkpointDir(manifest.version);
      await mkdir(checkpointDir, { recursive: true });
      for (const name of Object.keys(checkpoint.files)) await writeFileAtomic(join(checkpointDir, name), input.checkpoint.files.get(name) as Uint8Array);
      await writeFileAtomic(join(checkpointDir, CHECKPOINT_MANIFEST), input.checkpoint.manifest);
      await syncDirectory(checkpointDir);
    }
    const manifestPath = join(dir, 'manifest.json');
    await writeFileAtomic(manifestPath, input.manifest);
    await syncDirectory(dir);
    return { version: manifest.version, sha256, path: blobPath, manifestPath, manifest };
  }

  /** Recomputes a stored blob's sha256 (the gate's verify and promote re-check it). */
  async hashOfBlob(sha256: string): Promise<string> {
    return sha256Hex(await readFile(this.blobPath(sha256)));
  }

  /** The version's PEFT adapter_config.json (what verify checks and engines that load a PEFT folder read). */
  adapterConfigPath(version: string): string {
    return join(this.versionDir(version), 'adapter_config.json');
  }

  checkpointDir(version: string): string {
    if (!versionPattern.test(version)) throw new Error(`not a version id: ${JSON.stringify(version)}`);
    return join(this.root, 'checkpoints', version);
  }

  /**
   * Saves a trainer's state beside its candidate: each file temp + fsync +
   * rename, then checkpoint.json listing them with their hashes, last (a
   * checkpoint is complete iff checkpoint.json exists).
   */
  async putCheckpoint(version: string, state: { step: number; format: string; files: ReadonlyMap<string, Uint8Array> }): Promise<string> {
    const dir = this.checkpointDir(version);
    await mkdir(dir, { recursive: true });
    const files: CheckpointManifest['files'] = {};
    for (const [name, bytes] of state.files) {
      if (name === CHECKPOINT_MANIFEST || !/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`not a checkpoint file name: ${JSON.stringify(name)}`);
      await writeFileAtomic(join(dir, name), bytes);
      files[name] = { sha256: sha256Hex(bytes), bytes: bytes.byteLength };
    }
    const manifest = checkpointManifestSchema.parse({ version, step: state.step, format: state.format, files, createdAt: new Date().toISOString() });
    await writeFileAtomic(join(dir, CHECKPOINT_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await syncDirectory(dir);
    return dir;
  }

  /** A complete checkpoint's files, each checked against its recorded hash; null when the version has none. */
  async getCheckpoint(version: string): Promise<{ manifest: CheckpointManifest; files: Map<string, Uint8Array> } | null> {
    const dir = this.checkpointDir(version);
    const text = await readFile(join(dir, CHECKPOINT_MANIFEST), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (text === null) return null;
    const manifest = checkpointManifestSchema.parse(JSON.parse(text));
    if (manifest.version !== version) throw new Error(`checkpoint ${version}: its manifest names ${manifest.version}`);
    const files = new Map<string, Uint8Array>();
    for (const [name, expected] of Object.entries(manifest.files)) {
      const bytes = await readFile(join(dir, name));
      if (sha256Hex(bytes) !== expected.sha256) throw new Error(`checkpoint ${version}: ${name} does not match its recorded sha256`);
      files.set(name, bytes);
    }
    return { manifest, files };
  }

  /**
   * Removes the checkpoints of every version not in `keep` (a checkpoint is a
   * whole optimizer state, megabytes a step; a run resumes from its last
   * journaled step only). The candidates themselves are never touched.
   */
  async pruneCheckpoints(keep: readonly string[]): Promise<void> {
    const names = await readdir(join(this.root, 'checkpoints')).catch(() => [] as string[]);
    for (const name of names) {
      if (versionPattern.test(name) && !keep.includes(name)) await rm(join(this.root, 'checkpoints', name), { recursive: true, force: true });
    }
  }

  /** Writes a directory PEFT can load: adapter_model.safetensors + adapter_config.json. */
  async exportPeftDirectory(version: string, target: string): Promise<void> {
    const stored = await this.get(version);
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true });
    await copyFile(stored.path, join(target, 'adapter_model.safetensors'));
    await copyFile(join(this.versionDir(version), 'adapter_config.json'), join(target, 'adapter_config.json'));
  }
}
