// The gate's first check (docs/design.md, Verify), all static, before any probe:
// the content hash matches the manifest; every field an engine will use
// agrees with the recipe — the LoRA rank and alpha in the safetensors
// metadata and in PEFT's adapter_config.json (rank, alpha, targets, no
// rsLoRA/DoRA or per-module patterns that would change the scale); the
// tensors' names, shapes and dtypes match the base model's adapter spec;
// every value is finite; the update, scaled by the alpha the engine will
// apply, is within the recipe's norm bound. A candidate failing any of these
// never reaches a probe engine.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Rejection } from '../journal/journalEvents';
import { adapterSpecProblems, type AdapterTensorSpec } from '../weights/adapterSpec';
import { loraConfigProblems, type ExpectedLora } from '../weights/loraConfigCheck';
import { loraUpdateSquaredNorm } from '../weights/loraNorm';
import { parseSafetensors, toFloat32, type SafetensorsFile } from '../weights/safetensors';

export type VerifySettings = {
  spec: readonly AdapterTensorSpec[];
  /** The recipe's LoRA: what the metadata and adapter_config.json must say; the update is (alpha / rank) · B · A. */
  lora: ExpectedLora;
  maxUpdateNorm: number;
};

export { loraUpdateSquaredNorm };

export type VerifyEvidence = {
  sha256: string;
  bytes: number;
  tensors: number;
  parameters: number;
  maxAbs: number;
  updateNorm: number;
  maxUpdateNorm: number;
};

export type VerifyOutcome = { ok: true; evidence: VerifyEvidence } | { ok: false; reason: Rejection; evidence: Partial<VerifyEvidence> };

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Verifies a stored candidate: its blob and the version's adapter_config.json. */
export async function verifyCandidateFile(
  blobPath: string,
  claimedSha256: string,
  settings: VerifySettings,
  adapterConfigPath: string,
): Promise<VerifyOutcome> {
  let bytes: Buffer;
  try {
    bytes = await readFile(blobPath);
  } catch (error) {
    return { ok: false, reason: { code: 'unreadable', detail: (error as Error).message }, evidence: {} };
  }
  // The hash first, as for every candidate: a blob that is not what it claims is rejected for that.
  if (sha256Hex(bytes) !== claimedSha256) return verifyCandidateBytes(bytes, claimedSha256, settings);
  let adapterConfig: unknown;
  try {
    adapterConfig = JSON.parse(await readFile(adapterConfigPath, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      ok: false,
      reason: {
        code: 'tensor-spec',
        detail: missing
          ? `no adapter_config.json at ${adapterConfigPath}: an engine could not know the LoRA alpha`
          : `adapter_config.json is unreadable: ${(error as Error).message}`,
      },
      evidence: {},
    };
  }
  return verifyCandidateBytes(bytes, claimedSha256, settings, adapterConfig);
}

/**
 * Verifies adapter bytes (and, when given, the adapter_config.json beside
 * them; only tests of the tensor checks leave it out).
 */
export function verifyCandidateBytes(bytes: Uint8Array, claimedSha256: string, settings: VerifySettings, adapterConfig?: unknown): VerifyOutcome {
  const sha256 = sha256Hex(bytes);
  const evidence: Partial<VerifyEvidence> = { sha256, bytes: bytes.byteLength, maxUpdateNorm: settings.maxUpdateNorm };
  const reject = (code: Rejection['code'], detail: string): VerifyOutcome => ({ ok: false, reason: { code, detail }, evidence });

  if (sha256 !== claimedSha256) return reject('hash-mismatch', `content sha256 ${sha256.slice(0, 12)}… ≠ manifest ${claimedSha256.slice(0, 12)}…`);

  let file: SafetensorsFile;
  try {
    file = parseSafetensors(bytes);
  } catch (error) {
    return reject('unreadable', (error as Error).message);
  }
  evidence.tensors = file.tensors.size;

  const configProblems = loraConfigProblems(file.metadata, adapterConfig, settings.lora);
  if (configProblems.length > 0) return reject('tensor-spec', `LoRA config: ${configProblems.slice(0, 3).join('; ')}`);

  const problems = adapterSpecProblems(file, settings.spec);
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
    return reject('tensor-spec', problems.slice(0, 3).join('; ') + more);
  }

  // Finite values, then the update norm, module by module.
  let parameters = 0;
  let maxAbs = 0;
  let squaredNorm = 0;
  const byModule = new Map<string, { A?: Float32Array; B?: Float32Array; rank: number; in: number; out: number }>();
  for (const s of settings.spec) {
    const raw = file.tensors.get(s.name);
    if (!raw) return reject('tensor-spec', `missing tensor ${s.name}`);
    const data = toFloat32(s.name, raw).data;
    let nonFinite = 0;
    for (const v of data) {
      if (!Number.isFinite(v)) nonFinite++;
      else if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
    }
    if (nonFinite > 0) return reject('non-finite', `${nonFinite} NaN/Inf value(s) in ${s.name}`);
    parameters += data.length;
    const key = `${s.layer}.${s.module}`;
    const entry = byModule.get(key) ?? { rank: 0, in: 0, out: 0 };
    if (s.part === 'A') Object.assign(entry, { A: data, rank: s.shape[0], in: s.shape[1] });
    else Object.assign(entry, { B: data, out: s.shape[0] });
    byModule.set(key, entry);
  }
  // The alpha checked above is the one the engine applies.
  const scale = settings.lora.alpha / settings.lora.rank;
  for (const [key, m] of byModule) {
    if (!m.A || !m.B) return reject('tensor-spec', `module ${key} lacks its A or B factor`);
    squaredNorm += scale * scale * loraUpdateSquaredNorm(m.A, m.B, m.rank, m.in, m.out);
  }
  const updateNorm = Math.sqrt(squaredNorm);
  Object.assign(evidence, { parameters, maxAbs, updateNorm });
  if (!Number.isFinite(updateNorm)) return reject('non-finite', 'the update norm overflows float64');
  if (updateNorm > settings.maxUpdateNorm) return reject('update-norm', `update norm ${updateNorm.toFixed(3)} > bound ${settings.maxUpdateNorm}`);
  return { ok: true, evidence: evidence as VerifyEvidence };
}
