// The gate's first check (DESIGN §4 verify), all static, before any probe:
// the content hash matches the manifest; the tensors' names, shapes and dtypes
// match the base model's adapter spec; every value is finite; the update is
// within the recipe's norm bound. A candidate failing any of these never
// reaches a probe engine.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Rejection } from '../journal/journalEvents';
import { adapterSpecProblems, type AdapterTensorSpec } from '../weights/adapterSpec';
import { parseSafetensors, toFloat32, type SafetensorsFile } from '../weights/safetensors';

export type VerifySettings = {
  spec: readonly AdapterTensorSpec[];
  /** alpha / rank: the adapter's update is scale · B · A. */
  loraScale: number;
  maxUpdateNorm: number;
};

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

export async function verifyCandidateFile(blobPath: string, claimedSha256: string, settings: VerifySettings): Promise<VerifyOutcome> {
  let bytes: Buffer;
  try {
    bytes = await readFile(blobPath);
  } catch (error) {
    return { ok: false, reason: { code: 'unreadable', detail: (error as Error).message }, evidence: {} };
  }
  return verifyCandidateBytes(bytes, claimedSha256, settings);
}

export function verifyCandidateBytes(bytes: Uint8Array, claimedSha256: string, settings: VerifySettings): VerifyOutcome {
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
  for (const [key, m] of byModule) {
    if (!m.A || !m.B) return reject('tensor-spec', `module ${key} lacks its A or B factor`);
    squaredNorm += settings.loraScale * settings.loraScale * loraUpdateSquaredNorm(m.A, m.B, m.rank, m.in, m.out);
  }
  const updateNorm = Math.sqrt(squaredNorm);
  Object.assign(evidence, { parameters, maxAbs, updateNorm });
  if (!Number.isFinite(updateNorm)) return reject('non-finite', 'the update norm overflows float64');
  if (updateNorm > settings.maxUpdateNorm)
    return reject('update-norm', `update norm ${updateNorm.toFixed(3)} > bound ${settings.maxUpdateNorm}`);
  return { ok: true, evidence: evidence as VerifyEvidence };
}

/**
 * ‖B·A‖²_F without forming the [out,in] product: trace((BᵀB)(AAᵀ)), two r×r
 * Gram matrices (r is small), both symmetric, so the trace is Σ G₁∘G₂.
 */
export function loraUpdateSquaredNorm(A: Float32Array, B: Float32Array, rank: number, inDim: number, outDim: number): number {
  let total = 0;
  for (let i = 0; i < rank; i++) {
    for (let j = 0; j < rank; j++) {
      let aa = 0; // (A Aᵀ)_ij, A is [rank, in]
      for (let k = 0; k < inDim; k++) aa += (A[i * inDim + k] ?? 0) * (A[j * inDim + k] ?? 0);
      let bb = 0; // (Bᵀ B)_ij, B is [out, rank]
      for (let k = 0; k < outDim; k++) bb += (B[k * rank + i] ?? 0) * (B[k * rank + j] ?? 0);
      total += aa * bb;
    }
  }
  return total;
}
