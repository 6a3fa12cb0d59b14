/**
 * Loads the embedded policy from its directory (docs/internals.md, "The
 * embedded policy"): config, tokenizer, base weights as ORT tensors, and the
 * decode graph — each file checked against manifest.json's sha256 first, so
 * a corrupted or swapped asset fails loudly instead of serving garbage.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { policyConfigSchema, policyShape, type PolicyConfig, type PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, toFloat32 } from '../../../core/weights/safetensors';
import { detectCacheLayout, type CacheLayout } from './cacheLayout';
import { createDecodeSession, ort } from './ortSession';
import { Tokenizer } from './tokenizer';

const FileEntrySchema = z.looseObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.int().nonnegative().optional() });
const ManifestSchema = z.looseObject({ files: z.record(z.string(), FileEntrySchema) });

/** The files the engine needs; each must be listed in the manifest. */
const REQUIRED_FILES = ['decode.onnx', 'base.safetensors', 'config.json', 'tokenizer.json'] as const;

export interface PolicyModel {
  readonly dir: string;
  readonly shape: PolicyShape;
  readonly headDim: number;
  readonly tokenizer: Tokenizer;
  readonly baseSha256: string;
  /** Base weights by their HF name, ready to feed. */
  readonly baseFeeds: Readonly<Record<string, ort.Tensor>>;
  readonly session: ort.InferenceSession;
  /** How decode.onnx passes its cache (stacked or per layer). */
  readonly cacheLayout: CacheLayout;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The base tensor names and shapes the config implies (internals: "base.safetensors"). */
export function baseTensorShapes(shape: PolicyShape): Map<string, number[]> {
  const d = shape.hiddenSize;
  const f = shape.intermediateSize;
  const out = new Map<string, number[]>([['model.embed_tokens.weight', [shape.vocabSize, d]]]);
  for (let i = 0; i < shape.numLayers; i += 1) {
    const p = `model.layers.${i}`;
    out.set(`${p}.input_layernorm.weight`, [d]);
    for (const m of ['q', 'k', 'v', 'o']) out.set(`${p}.self_attn.${m}_proj.weight`, [d, d]);
    out.set(`${p}.post_attention_layernorm.weight`, [d]);
    out.set(`${p}.mlp.gate_proj.weight`, [f, d]);
    out.set(`${p}.mlp.up_proj.weight`, [f, d]);
    out.set(`${p}.mlp.down_proj.weight`, [d, f]);
  }
  out.set('model.norm.weight', [d]);
  return out;
}

/**
 * The shapes of a config the embedded graphs can run: multi-head attention
 * (as many key/value heads as query heads, head width hidden / heads) and
 * tied embeddings. Larger Llama-family models go to the other backends.
 */
export function embeddedShape(config: PolicyConfig, where: string): PolicyShape {
  const shape = policyShape(config);
  const problems: string[] = [];
  if (shape.numKvHeads !== shape.numHeads) problems.push(`grouped-query attention (${shape.numKvHeads} key/value heads for ${shape.numHeads})`);
  if (shape.headDim * shape.numHeads !== shape.hiddenSize)
    problems.push(`head_dim ${shape.headDim} × ${shape.numHeads} heads ≠ hidden_size ${shape.hiddenSize}`);
  if (!shape.tiedEmbeddings) problems.push('untied embeddings');
  if (problems.length > 0) throw new Error(`${where}: the embedded engine and trainer cannot run ${problems.join(', ')}`);
  return shape;
}

export async function loadPolicyModel(dir: string, threads?: number): Promise<PolicyModel> {
  const manifestPath = join(dir, 'manifest.json');
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (error) {
    throw new Error(`${manifestPath}: ${(error as Error).message}`, { cause: error });
  }
  const manifest = ManifestSchema.safeParse(manifestJson);
  if (!manifest.success) throw new Error(`${manifestPath}: ${manifest.error.message}`);

  const bytes = new Map<string, Uint8Array>();
  for (const name of REQUIRED_FILES) {
    const entry = manifest.data.files[name];
    if (!entry) throw new Error(`${manifestPath}: no entry for ${name}`);
    const path = join(dir, name);
    const data = await readFile(path);
    const actual = sha256(data);
    if (actual !== entry.sha256) throw new Error(`${path}: sha256 ${actual} does not match the manifest's ${entry.sha256}`);
    bytes.set(name, data);
  }
  const text = (name: string) => new TextDecoder().decode(bytes.get(name));

  const config = policyConfigSchema.safeParse(JSON.parse(text('config.json')));
  if (!config.success) throw new Error(`${join(dir, 'config.json')}: ${config.error.message}`);
  const shape = embeddedShape(config.data, join(dir, 'config.json'));
  const tokenizer = Tokenizer.fromJson(JSON.parse(text('tokenizer.json')));
  if (tokenizer.vocabSize !== shape.vocabSize) {
    throw new Error(`tokenizer has ${tokenizer.vocabSize} entries, config.vocab_size is ${shape.vocabSize}`);
  }

  const weights = parseSafetensors(bytes.get('base.safetensors') as Uint8Array);
  const baseFeeds: Record<string, ort.Tensor> = {};
  for (const [name, expected] of baseTensorShapes(shape)) {
    const raw = weights.tensors.get(name);
    if (!raw) throw new Error(`base.safetensors: missing ${name}`);
    if (raw.shape.length !== expected.length || raw.shape.some((d, i) => d !== expected[i])) {
      throw new Error(`base.safetensors: ${name} has shape ${JSON.stringify(raw.shape)}, config implies ${JSON.stringify(expected)}`);
    }
    baseFeeds[name] = new ort.Tensor('float32', toFloat32(name, raw).data, expected);
  }

  const session = await createDecodeSession(join(dir, 'decode.onnx'), threads);
  const missing = ['input_ids', 'position_ids', 'attention_mask', 'lora_scale', ...Object.keys(baseFeeds)].filter((n) => !session.inputNames.includes(n));
  if (missing.length > 0) throw new Error(`decode.onnx lacks inputs ${missing.join(', ')}`);
  if (!session.outputNames.includes('logits')) throw new Error('decode.onnx lacks output logits');
  const cacheLayout = detectCacheLayout(session, shape.numLayers);

  return {
    dir,
    shape,
    headDim: shape.headDim,
    tokenizer,
    baseSha256: (manifest.data.files['base.safetensors'] as { sha256: string }).sha256,
    baseFeeds,
    session,
    cacheLayout,
  };
}
