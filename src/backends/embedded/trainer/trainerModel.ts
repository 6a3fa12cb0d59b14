/**
 * What the trainer loads from the policy directory: config.json,
 * base.safetensors (the frozen base), grad.onnx and, when present,
 * decode.onnx for forward-only passes — each checked against manifest.json's
 * sha256 when the manifest lists it, so the trainer never trains against a
 * base other than the one the engine serves.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { policyConfigSchema, type PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, toFloat32 } from '../../../core/weights/safetensors';
import { baseTensorShapes, embeddedShape } from '../engine/policyModel';
import { createDecodeSession, ort } from '../engine/ortSession';
import { DecodeForward } from './decodeForward';
import { GradGraph, type NamedTensor } from './gradGraph';
import type { LogitsSource } from './logitsSource';

const manifestSchema = z.looseObject({
  files: z.record(z.string(), z.looseObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});

export interface TrainerModel {
  readonly dir: string;
  readonly shape: PolicyShape;
  readonly baseSha256: string;
  readonly graph: GradGraph;
  /** decode.onnx when the directory has one, else grad.onnx itself. */
  readonly forward: LogitsSource;
  release(): Promise<void>;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Base tensors by HF name, shapes checked against the config. */
export function baseTensors(bytes: Uint8Array, shape: PolicyShape): Map<string, NamedTensor> {
  const file = parseSafetensors(bytes);
  const out = new Map<string, NamedTensor>();
  for (const [name, expected] of baseTensorShapes(shape)) {
    const raw = file.tensors.get(name);
    if (raw === undefined) throw new Error(`base.safetensors: missing ${name}`);
    if (raw.shape.length !== expected.length || raw.shape.some((d, i) => d !== expected[i])) {
      throw new Error(`base.safetensors: ${name} has shape ${JSON.stringify(raw.shape)}, the config implies ${JSON.stringify(expected)}`);
    }
    out.set(name, { shape: expected, data: toFloat32(name, raw).data });
  }
  return out;
}

export async function loadTrainerModel(dir: string, options: { readonly gradGraph?: string; readonly threads?: number } = {}): Promise<TrainerModel> {
  const manifestPath = join(dir, 'manifest.json');
  const manifest = manifestSchema.parse(JSON.parse(await readFile(manifestPath, 'utf8')));
  const checked = async (name: string, required: boolean): Promise<Uint8Array> => {
    const path = join(dir, name);
    const bytes = await readFile(path);
    const entry = manifest.files[name];
    if (entry === undefined) {
      if (required) throw new Error(`${manifestPath}: no entry for ${name}`);
      return bytes;
    }
    const actual = sha256(bytes);
    if (actual !== entry.sha256) throw new Error(`${path}: sha256 ${actual} does not match the manifest's ${entry.sha256}`);
    return bytes;
  };
  const configBytes = await checked('config.json', true);
  const config = policyConfigSchema.parse(JSON.parse(new TextDecoder().decode(configBytes)));
  const shape = embeddedShape(config, join(dir, 'config.json'));
  const baseBytes = await checked('base.safetensors', true);
  const gradPath = options.gradGraph ?? join(dir, 'grad.onnx');
  if (options.gradGraph === undefined) await checked('grad.onnx', false);
  const base = baseTensors(baseBytes, shape);
  const graph = await GradGraph.open(gradPath, shape, base, options.threads);
  let decode: ort.InferenceSession | null = null;
  const decodeBytes = await checked('decode.onnx', false).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (decodeBytes !== null) decode = await createDecodeSession(join(dir, 'decode.onnx'), options.threads);
  const forward =
    decode === null
      ? graph
      : new DecodeForward(
          decode,
          shape,
          Object.fromEntries([...base].map(([name, t]) => [name, new ort.Tensor('float32', Float32Array.from(t.data), [...t.shape])])),
        );
  return {
    dir,
    shape,
    baseSha256: sha256(baseBytes),
    graph,
    forward,
    release: async () => {
      await graph.release();
      await decode?.release();
    },
  };
}
