/**
 * A training step that ends in a candidate: step the adapter, then write it to
 * the weight store as a PEFT adapter with its manifest. If the step is refused
 * (bad input, non-finite numbers) nothing is written: no candidate.
 */
import { peftTargetName } from '../../../core/weights/adapterSpec';
import { LORA_MODULES } from '../../../core/weights/policyConfig';
import type { StoredCandidate, WeightStore } from '../../../core/weights/weightStore';
import type { LoraTrainer, StepReport } from './loraTrainer';
import { peftAdapterConfig } from '../../../core/weights/peftAdapterFormat';
import { serializePeftAdapter } from './peftAdapter';

export interface CandidateStep {
  readonly report: StepReport;
  readonly candidate: StoredCandidate;
}

export class CandidateTrainer {
  private readonly sessions: string[];
  private turns: number;

  constructor(
    readonly trainer: LoraTrainer,
    readonly store: WeightStore,
    readonly base: { readonly sha256: string; readonly nameOrPath: string },
    /** What the adapter was trained on before (a resumed run continues its manifest's data range). */
    before: { readonly sessions: readonly string[]; readonly turns: number } = { sessions: [], turns: 0 },
  ) {
    this.sessions = [...before.sessions];
    this.turns = before.turns;
  }

  async step(samples: unknown, lr?: number): Promise<CandidateStep> {
    const report = await this.trainer.step(samples, lr);
    for (const s of report.sessionRange) if (!this.sessions.includes(s)) this.sessions.push(s);
    this.turns += report.samples;
    const candidate = await this.storeCurrent('trainer', report.loss);
    return { report, candidate };
  }

  /** Writes the trainer's current adapter as a version (kind `injected` for deliberately bad candidates). */
  async storeCurrent(kind: 'trainer' | 'injected', loss: number | null, note?: string): Promise<StoredCandidate> {
    const params = this.trainer.params;
    return this.store.put({
      blob: serializePeftAdapter(params),
      adapterConfig: peftAdapterConfig(params.settings, this.base.nameOrPath),
      manifest: {
        kind,
        ...(note !== undefined ? { note } : {}),
        baseModelSha256: this.base.sha256,
        step: this.trainer.steps,
        dataRange: { sessions: [...this.sessions], turns: this.turns },
        loss,
        lora: {
          rank: params.settings.rank,
          alpha: params.settings.alpha,
          targets: LORA_MODULES.filter((m) => params.settings.targets.includes(m)).map(peftTargetName),
        },
      },
    });
  }
}
