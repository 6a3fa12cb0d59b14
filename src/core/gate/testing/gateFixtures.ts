// Test fixtures for the gate's unit tests: a tiny policy shape, real
// safetensors adapters written to a real run folder, and a probe sampler
// double whose replies are scripted per adapter version (the real probe
// engine is exercised by the integration tests under tests/).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RunJournal } from '../../journal/runJournal';
import { writeServingPointer, type ServingPointer } from '../../journal/servingPointer';
import type { GateConfig } from '../../recipe/recipeSchema';
import type { AdapterRef } from '../../protocols/engineProtocol';
import { adapterSpec, type LoraSettings } from '../../weights/adapterSpec';
import { peftAdapterConfig } from '../../weights/peftAdapterFormat';
import type { PolicyShape } from '../../weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../../weights/safetensors';
import type { ProbeReply } from '../probeMetrics';
import type { ProbeSampler, RoundReplies } from '../probeRunner';
import { ReleaseGate, type ServingSwitch } from '../releaseGate';
import { sha256Hex, type VerifySettings } from '../verifyCandidate';

export const tinyShape: PolicyShape = {
  vocabSize: 32,
  hiddenSize: 8,
  intermediateSize: 16,
  numLayers: 1,
  numHeads: 2,
  numKvHeads: 2,
  headDim: 4,
  maxPositions: 64,
  tiedEmbeddings: true,
};
export const tinyLora = { rank: 2, alpha: 4, targets: ['q', 'v'] } as const satisfies LoraSettings;
export const tinySpec = adapterSpec(tinyShape, tinyLora);
export const verifySettings: VerifySettings = { spec: tinySpec, lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] }, maxUpdateNorm: 5 };
export const baseVersion: ServingPointer = { version: 'base', sha256: 'b'.repeat(64) };

export const gateConfig = (confirm: 'auto' | 'manual'): GateConfig => ({
  rounds: 3,
  probe: { problems: 4, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 256 }, seeds: 'fresh' },
  margins: { pass_rate: 0.25, gold_rate: 0.25, answered_rate: 0, mean_violations: 0.5 },
  floors: { gold_rate: 0, answered_rate: 0 },
  max_update_norm: 5,
  confirm,
});

/** An adapter with every value `value` (0.01 is a small, healthy update). */
export function adapterTensors(value = 0.01): Map<string, Float32Tensor> {
  return new Map(tinySpec.map((s) => [s.name, { shape: s.shape, data: new Float32Array(s.shape[0] * s.shape[1]).fill(value) }]));
}

const created: string[] = [];
/** Removes every run folder the fixtures made (call from afterAll). */
export async function removeRunDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export async function newRunDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-gate-'));
  created.push(dir);
  await mkdir(path.join(dir, 'weights', 'blobs'), { recursive: true });
  return dir;
}

/** Writes bytes into the run's store with the recipe's adapter_config.json (or the one given); returns what `stage` needs. */
export async function storeBlob(
  runDir: string,
  bytes: Uint8Array,
  step: number,
  claimedSha = sha256Hex(bytes),
  adapterConfig: object = peftAdapterConfig(tinyLora, 'tiny'),
) {
  const actual = sha256Hex(bytes);
  const blob = path.join('weights', 'blobs', `${actual}.safetensors`);
  await writeFile(path.join(runDir, blob), bytes);
  const version = `v${step}-${claimedSha.slice(0, 8)}`;
  await mkdir(path.join(runDir, 'weights', 'versions', version), { recursive: true });
  await writeFile(path.join(runDir, 'weights', 'versions', version, 'adapter_config.json'), JSON.stringify(adapterConfig));
  return { version, sha256: claimedSha, blob };
}

export const healthyBytes = (value = 0.01): Uint8Array => serializeSafetensors(adapterTensors(value));

type Behaviour = { text: (taskIndex: number) => string; finish?: 'stop' | 'length' };
const CLEAN = (i: number) => `First I add ${i + 3} + 4 = ${i + 7} and then ${i + 7} * 2 = ${2 * i + 14} so the answer is ${2 * i + 14}.`;
const STYLED = (i: number) => `**Solution**\n1. ${i + 3} + 4 = ${i + 7}\n2. ${i + 7} * 2 = ${2 * i + 14}\nFinal answer: ${2 * i + 14}`;
export const behaviours = {
  clean: { text: CLEAN },
  styled: { text: STYLED },
  wrongGold: {
    text: (i: number) =>
      CLEAN(i)
        .replace(/is \d+\.$/, 'is 999.')
        .replace(`= ${2 * i + 14}`, '= 1'),
  },
  empty: { text: () => '' },
  runaway: { text: (i: number) => CLEAN(i), finish: 'length' as const },
  markdownHeavy: { text: (i: number) => `# Answer\n- **step** ${i + 3} + 4 = ${i + 7}\n- **step** ${i + 7} * 2 = ${2 * i + 14}\n\\boxed{${2 * i + 14}}` },
} satisfies Record<string, Behaviour>;

/** A probe sampler double: replies depend on the adapter version, recorded calls for assertions. */
export class ScriptedProbeSampler implements ProbeSampler {
  readonly calls: { version: string; seed: number }[] = [];
  private readonly byVersion = new Map<string, Behaviour>();
  failNext: Error | undefined;
  gate: Promise<void> | undefined;
  /** Calls from this index on wait forever (a process that stopped mid-round). */
  holdFrom = Infinity;

  constructor(private readonly fallback: Behaviour) {}

  behave(version: string, behaviour: Behaviour): void {
    this.byVersion.set(version, behaviour);
  }

  /** The candidate's side, then serving's (the order `calls` records). */
  async sampleRound(candidate: AdapterRef, serving: AdapterRef | null, seed: number): Promise<RoundReplies> {
    return { candidate: await this.sample(candidate, seed), serving: await this.sample(serving, seed) };
  }

  async sample(adapter: AdapterRef | null, seed: number): Promise<ProbeReply[]> {
    const version = adapter?.version ?? 'base';
    this.calls.push({ version, seed });
    if (this.calls.length > this.holdFrom) await new Promise(() => undefined);
    if (this.gate) await this.gate;
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    const b = this.byVersion.get(version) ?? this.fallback;
    return Array.from({ length: 4 }, (_, i) => {
      const text = b.text(i);
      return { taskId: `probe-${i}`, gold: 2 * i + 14, seed: seed + i, text, finishReason: b.finish ?? 'stop', completionTokens: text.length };
    });
  }
}

export class RecordingServing implements ServingSwitch {
  readonly swaps: (string | null)[] = [];
  fail: Error | undefined;
  async swapTo(adapter: AdapterRef | null): Promise<void> {
    if (this.fail) throw this.fail;
    this.swaps.push(adapter?.version ?? null);
  }
}

export async function openGate(runDir: string, opts: { confirm: 'auto' | 'manual'; probe?: ProbeSampler; serving?: ServingSwitch }) {
  const journal = await RunJournal.open(runDir);
  if (journal.events.length === 0) {
    await journal.append({ type: 'run-started', runId: 'test', recipeFile: 'x.yaml', recipe: {}, baseVersion });
    await writeServingPointer(runDir, baseVersion);
  }
  const errors: Error[] = [];
  const gate = new ReleaseGate({
    runDir,
    journal,
    config: gateConfig(opts.confirm),
    verify: verifySettings,
    ...(opts.probe ? { probe: opts.probe } : {}),
    ...(opts.serving ? { serving: opts.serving } : {}),
    runSeed: 7,
    onError: (e) => errors.push(e),
  });
  return { gate, journal, errors };
}
