// `gatelab inject --file PATH`: any adapter file — an external trainer's, say —
// enters through the same gate as the run's own candidates. PATH is a
// safetensors file, or a PEFT folder holding adapter_model.safetensors and
// optionally a manifest.json whose blobSha256 is the hash it claims (verify
// then checks the bytes against it).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { loraModuleFromPeft } from '../weights/adapterSpec';
import { peftAdapterConfig } from '../weights/peftAdapterFormat';
import { WeightStore } from '../weights/weightStore';
import { sha256Schema } from '../weights/weightIds';
import { sha256Hex } from './verifyCandidate';

const claimSchema = z.looseObject({ blobSha256: sha256Schema.optional(), step: z.int().min(0).optional() });

type LoraInfo = { rank: number; alpha: number; targets: string[] };
const peftConfigSchema = z.looseObject({
  r: z.int().positive(),
  lora_alpha: z.number().positive(),
  target_modules: z.union([z.array(z.string()).min(1), z.string()]),
});

/**
 * `expected` is the recipe's LoRA. A PEFT folder's own adapter_config.json is
 * kept as it is (verify checks it against the recipe); a bare safetensors
 * file has none, so the recipe's PEFT config is written beside it — what an
 * engine will then apply, and verify still checks the blob's own metadata.
 */
export async function stageableAdapterFile(runDir: string, file: string, baseModelSha256: string, expected: LoraInfo, baseModelNameOrPath: string) {
  const source = path.resolve(file);
  const info = await stat(source).catch(() => null);
  if (!info) throw new Error(`no such adapter file: ${source}`);
  const blobFile = info.isDirectory() ? path.join(source, 'adapter_model.safetensors') : source;
  const manifestFile = info.isDirectory() ? path.join(source, 'manifest.json') : null;
  const bytes = await readFile(blobFile).catch((e: Error) => {
    throw new Error(`cannot read ${blobFile}: ${e.message}`);
  });
  let claimed = sha256Hex(bytes);
  let step = 0;
  let lora = expected;
  let adapterConfig: object = peftAdapterConfig(
    { rank: expected.rank, alpha: expected.alpha, targets: expected.targets.map(loraModuleFromPeft) },
    baseModelNameOrPath,
  );
  if (info.isDirectory()) {
    const text = await readFile(path.join(source, 'adapter_config.json'), 'utf8').catch(() => null);
    if (text !== null) {
      const raw = JSON.parse(text) as unknown;
      const config = peftConfigSchema.parse(raw);
      adapterConfig = raw as object;
      lora = { rank: config.r, alpha: config.lora_alpha, targets: typeof config.target_modules === 'string' ? [config.target_modules] : config.target_modules };
    }
  }
  if (manifestFile) {
    const text = await readFile(manifestFile, 'utf8').catch(() => null);
    if (text !== null) {
      const manifest = claimSchema.parse(JSON.parse(text));
      claimed = manifest.blobSha256 ?? claimed;
      step = manifest.step ?? 0;
    }
  }
  // Stored by what the bytes are; staged with what the manifest claims.
  const store = new WeightStore(path.join(runDir, 'weights'));
  const stored = await store.put({
    blob: bytes,
    adapterConfig,
    manifest: {
      kind: 'injected',
      note: `external adapter from ${source}`,
      baseModelSha256,
      step,
      dataRange: { sessions: [], turns: 0 },
      loss: null,
      lora,
    },
  });
  return {
    version: `v${step}-${claimed.slice(0, 8)}`,
    sha256: claimed,
    blob: path.relative(runDir, stored.path),
    source: { kind: 'file' as const, path: source },
  };
}
