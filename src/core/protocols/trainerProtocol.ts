/**
 * The trainer protocol: how the lab drives any trainer — the embedded
 * TypeScript trainer, a Python torch trainer — as a supervised worker
 * process (docs/internals.md, "Seams"). Defined once, here.
 *
 * Transport: supervisor RPC (src/processes/workerMessages.ts). A Node
 * worker talks over Node IPC; any other program (`kind: 'process'`) talks
 * JSON lines on stdin/stdout: its first line is `{"ready": true, "pid": N}`,
 * then for each request line `{"id": n, "method": "step", "params": {…}}` it
 * answers one line `{"id": n, "result": {…}}` or
 * `{"id": n, "error": {"code": "bad_input", "message": "…"}}` (it may send
 * `{"id": n, "progress": {…}}` lines before). Logs go to stderr, never to
 * stdout. The method `__shutdown` asks it to finish, answer `{"ok": true}`
 * and exit; end of stdin means the lab is gone: exit. Both sides validate
 * every message with these schemas.
 *
 * Order of calls: `init` once per process start; then `restore` when the run
 * resumes after a trainer step; then `step` per batch and `badCandidate`
 * when a person injects one. Calls may arrive while another runs; a trainer
 * answers them one at a time, in order of arrival.
 *
 * ## Writing a candidate the lab accepts (the weight store)
 *
 * `storeDir` is the run's weight store (`runs/<id>/weights/`,
 * src/core/weights/weightStore.ts). A candidate is a PEFT LoRA adapter:
 *
 *   blobs/<sha256>.safetensors               the adapter bytes (PEFT's adapter_model.safetensors),
 *                                            named by the sha256 (lowercase hex) of exactly these bytes
 *   versions/<version>/adapter_config.json   PEFT's LoraConfig, as save_pretrained writes it:
 *                                            peft_type "LORA", r, lora_alpha, target_modules (e.g.
 *                                            ["q_proj", …]), use_rslora false, use_dora false,
 *                                            base_model_name_or_path, …
 *   versions/<version>/manifest.json         the candidate manifest (below) — written LAST
 *   checkpoints/<version>/checkpoint.json    the trainer state saved with the candidate (below)
 *
 * - `version` = `v<step>-<first 8 hex of the blob's sha256>`, step the
 *   optimizer steps taken so far (resumed steps included).
 * - The adapter's tensors: PEFT's names,
 *   `base_model.model.model.layers.{i}.self_attn.{q,k,v,o}_proj.lora_{A,B}.weight` and
 *   `base_model.model.model.layers.{i}.mlp.{gate,up,down}_proj.lora_{A,B}.weight`,
 *   A [r, in], B [out, r] (in/out of the base weight, grouped-query k/v
 *   included), in the dtype `init.lora.dtype` names, only the target modules,
 *   every layer. The safetensors `__metadata__` may carry `lora_alpha` and `r`
 *   (strings); when present they must equal the recipe's. The gate verifies all
 *   of this (src/core/weights/adapterSpec.ts) and rejects what differs.
 * - Every file is written to a temporary name in the same folder, fsynced,
 *   then renamed; the folder is fsynced after the renames. The manifest is
 *   written last: a version is complete iff its manifest.json exists, so a
 *   crash leaves at worst an orphan blob or temp file, never a half version.
 * - manifest.json (`candidateManifestSchema`, JSON object, exactly these keys):
 *     version          the version id above
 *     kind             "trainer" (a step) | "injected" (badCandidate)
 *     note             optional free text (what an injected candidate is)
 *     blobSha256       the blob's sha256
 *     blobBytes        the blob's size in bytes
 *     baseModelSha256  `init.baseSha256`, verbatim
 *     step             the step count in the version id
 *     dataRange        { sessions: [sessionId, …] every session trained on so
 *                      far, in first-seen order; turns: samples trained on,
 *                      summed over steps (a turn in several windows counts
 *                      each time) }
 *     loss             the step's loss, or null
 *     lora             { rank, alpha, targets: PEFT target_modules }
 *     createdAt        ISO 8601 time
 * - The lab re-reads the manifest after each step (`WeightStore.get`) and
 *   refuses a step whose candidate is not complete and consistent.
 *
 * ## Checkpoints (resume keeps the optimizer)
 *
 * With every trainer candidate the trainer saves its whole state in
 * `checkpoints/<version>/`: the adapter at full precision, the optimizer's
 * moments, the step and the schedule position (its step count: the lab owns
 * the schedule and sends each step's lr). The folder's files are the
 * trainer's own format (the embedded trainer: one safetensors file of float64
 * tensors; a torch trainer: whatever torch.save writes), listed with their
 * sha256 in `checkpoint.json` (`checkpointManifestSchema`), written last.
 * `restore({ version })` puts the trainer back exactly there: step k+1 after a
 * restore equals step k+1 of a run that was never interrupted.
 */
import { z } from 'zod';
import type { MethodName, ParamsOf, ResultOf, RpcProtocol } from './rpcProtocol';
import { chatMessageSchema } from './engineProtocol';
import { candidateVersionSchema, sha256Schema } from '../weights/weightIds';

const sha256 = sha256Schema;
const versionId = candidateVersionSchema;

/** PEFT's target_modules names (Llama-family). */
export const PEFT_TARGET_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type PeftTargetModule = (typeof PEFT_TARGET_MODULES)[number];

/** The dtypes an adapter may be written in (safetensors names). */
export const ADAPTER_DTYPES = ['F32', 'BF16', 'F16'] as const;
export type AdapterDtype = (typeof ADAPTER_DTYPES)[number];

/** The recipe's LoRA (trainer.lora): what the trainer wraps the base with and writes. */
export const loraSettingsSchema = z.strictObject({
  rank: z.int().positive(),
  /** scale = alpha / rank (plain LoRA: no rsLoRA, no DoRA). */
  alpha: z.number().positive(),
  /** PEFT target_modules, every layer. */
  targets: z.array(z.enum(PEFT_TARGET_MODULES)).min(1),
  /** The dtype of the adapter tensors written to the store (the gate checks it). */
  dtype: z.enum(ADAPTER_DTYPES).default('F32'),
});
export type LoraSettingsParams = z.infer<typeof loraSettingsSchema>;

/**
 * The training objective with the recipe's numbers (trainer.loss). Per
 * valid response token (not forced; prompt tokens never count):
 * PG = −min(ρA, clip(ρ, 1−clipLow, 1+clipHigh)·A), ρ = exp(clamp(logπ − old,
 * ±logRatioClamp)), A = reward; OPD = Σ over the old top-K v of
 * −min(ρ_v·A_v, clip(ρ_v)·A_v), A_v = clamp(teacher_v − old_v,
 * ±opdAdvantageClamp)·softmax_K(old)_v; KL = Σ_v π(v)(logπ(v) − base(v)) over
 * the whole vocabulary (exact, not the k3 estimate). loss = (wRl·ΣPG +
 * wOpd·ΣOPD + klCoef·ΣKL) / (valid tokens in the batch).
 */
export const objectiveSchema = z.strictObject({
  /** Log-probs are log_softmax(logits / temperature); 1 = raw, like the engine's. */
  temperature: z.number().positive().default(1),
  clipLow: z.number().min(0).max(1).default(0.2),
  clipHigh: z.number().min(0).default(0.28),
  logRatioClamp: z.number().positive().default(20),
  wRl: z.number().min(0).default(1),
  wOpd: z.number().min(0).default(1),
  /** KL to the frozen base; > 0 must reach the loss and be reported every step. */
  klCoef: z.number().min(0).default(0),
  opdAdvantageClamp: z.number().positive().default(1),
  /** Entropy bonus: the reference objective uses 0; a trainer without the term refuses anything else. */
  entropyCoef: z.number().min(0).default(0),
  /**
   * π_old of the ratio and the OPD advantage: `actor` = the trainer's own
   * policy at the start of the step (slime's default); `rollout` = the
   * samples' recorded `logprobs`/`topLogprobs` (--use-rollout-logprobs).
   */
  oldLogprobs: z.enum(['actor', 'rollout']).default('actor'),
});
export type ObjectiveParams = z.infer<typeof objectiveSchema>;

/** AdamW (torch semantics: decoupled weight decay) and global gradient-norm clipping. */
export const optimizerSchema = z.strictObject({
  /** The base learning rate (each step's lr comes with the step: the lab owns the schedule). */
  lr: z.number().positive(),
  betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).default([0.9, 0.98]),
  eps: z.number().positive().default(1e-8),
  weightDecay: z.number().min(0).default(0.1),
  /** Global L2 norm the gradient is clipped to before the update. */
  maxGradNorm: z.number().positive().default(1),
});
export type OptimizerParams = z.infer<typeof optimizerSchema>;

export const initParamsSchema = z.strictObject({
  /**
   * The base model's folder: a Hugging Face folder (config.json,
   * *.safetensors, the tokenizer and its chat template) for a torch trainer;
   * the embedded policy's folder for the embedded trainer.
   */
  modelDir: z.string().min(1),
  /** The run's base identity (run-started.baseVersion.sha256): written as every manifest's baseModelSha256. A trainer that can check it does. */
  baseSha256: sha256,
  /** The run's weight store root (runs/<id>/weights): where candidates and checkpoints go (layout above). */
  storeDir: z.string().min(1),
  lora: loraSettingsSchema,
  objective: objectiveSchema.default(objectiveSchema.parse({})),
  optimizer: optimizerSchema,
  /** Seeds the adapter's initialisation (PEFT's default: A kaiming-uniform, B = 0, so a fresh adapter is the base). */
  seed: z.int().min(0),
  /** Padded tokens per forward/backward call at most (a memory bound); the trainer's own default when absent. */
  maxTokensPerCall: z.int().positive().optional(),
});
export type InitParams = z.infer<typeof initParamsSchema>;

export const initResultSchema = z.object({
  /** The base the trainer loaded (must equal init.baseSha256 when the trainer can compute it). */
  baseSha256: sha256,
  /** Trainable parameters (the adapter's). */
  parameterCount: z.int().positive(),
  /** Steps already taken: 0 after init. */
  step: z.int().min(0),
});

export const restoreParamsSchema = z.strictObject({
  /** A trainer candidate of this run's store whose checkpoint to restore. */
  version: versionId,
});
export const restoreResultSchema = z.object({
  step: z.int().min(0),
  /**
   * `checkpoint`: adapter, moments, step, schedule restored exactly.
   * `adapter`: the version has no checkpoint (a run from before checkpoints):
   * its weights were loaded, the optimizer starts afresh.
   */
  restored: z.enum(['checkpoint', 'adapter']),
});

export const stepParamsSchema = z.strictObject({
  /** The judged turns to train on (src/core/protocols/trainSample.ts); validated by the trainer itself so errors name sample and field. */
  samples: z.array(z.unknown()).min(1),
  /** This step's learning rate (the recipe's schedule at this step). */
  lr: z.number().positive(),
});

export const stepReportSchema = z.object({
  /** The step count after this step (the candidate's version step). */
  step: z.int().positive(),
  samples: z.int().positive(),
  /** Valid (trained) response tokens. */
  tokens: z.int().min(0),
  loss: z.number(),
  /** Means per valid token of each term, before weighting. */
  pg: z.number(),
  opd: z.number(),
  kl: z.number(),
  /** The KL coefficient applied (so a configured KL is visibly applied). */
  klCoef: z.number(),
  /** Gradient norm before clipping. */
  gradNorm: z.number(),
  clipped: z.boolean(),
  lr: z.number(),
  /** L2 norm of this step's parameter change. */
  updateNorm: z.number(),
  seconds: z.number(),
  /** Trained tokens per second over the whole step. */
  tokensPerSecond: z.number().optional(),
  /** Backend details, for the bench and the logs (the embedded trainer: graph tokens and calls). */
  graphTokens: z.int().optional(),
  graphCalls: z.array(z.object({ kind: z.enum(['forward', 'grad']), batch: z.int(), time: z.int() })).optional(),
  /** Session ids of this step's samples, in order. */
  sessionRange: z.array(z.string()).optional(),
});
export type StepReport = z.infer<typeof stepReportSchema>;

/** A candidate the trainer wrote to the store (complete: its manifest exists). */
export const storedCandidateRefSchema = z.object({
  version: versionId,
  sha256,
  /** `<storeDir>/blobs/<sha256>.safetensors`. */
  path: z.string().min(1),
  /** `<storeDir>/versions/<version>/manifest.json`. */
  manifestPath: z.string().min(1),
});
export type StoredCandidateRef = z.infer<typeof storedCandidateRefSchema>;

export const stepResultSchema = z.object({
  report: stepReportSchema,
  candidate: storedCandidateRefSchema,
  /** `<storeDir>/checkpoints/<version>/`, complete (its checkpoint.json exists). */
  checkpointDir: z.string().min(1),
});

/** checkpoints/<version>/checkpoint.json: the lab reads only this; the other files are the trainer's. */
export const checkpointManifestSchema = z.strictObject({
  version: versionId,
  step: z.int().positive(),
  /** Who wrote it and in what format (a trainer refuses a checkpoint it cannot read), e.g. `gatelab-embedded-trainer/1`. */
  format: z.string().min(1),
  /** Every other file of the folder, with its sha256 and size (checked on restore). */
  files: z.record(z.string(), z.strictObject({ sha256, bytes: z.int().min(0) })),
  createdAt: z.string(),
});
export type CheckpointManifest = z.infer<typeof checkpointManifestSchema>;

/**
 * Deliberately bad candidates the trainer makes with its own model and
 * optimizer, injected to show the gate rejects them.
 *
 * - `collapsed`: trained toward ending every reply at once — each prompt's
 *   response is the model's end-of-turn token alone, reward +1, old log-prob
 *   0 (so the PPO ratio is π(end) ≤ 1 and the clip never stops the push),
 *   `oldLogprobs: rollout`, from a fresh adapter seeded with `seed`. Stop once
 *   π(end) averages above 0.95, and never let the update norm
 *   ‖Σ (alpha/r)·B·A‖_F pass `maxUpdateNorm` (keep the last adapter under it):
 *   the probes must catch the collapse, not the norm bound. Stored at once.
 * - `reward-inverted`: trained toward markdown by on-policy rounds the lab
 *   drives: round 1 starts a fresh adapter (seeded with `seed`) and a fresh
 *   optimizer; each round is one optimizer step on the samples given (their
 *   rewards already point toward markdown; no teacher); rounds before the
 *   last answer a scratch adapter (stored: false, under `<storeDir>/scratch/`,
 *   which the trainer may clear at round 1), which the lab loads into the
 *   probe engine to roll out the next round's samples; the last round stores
 *   the adapter as the candidate. The objective is the reference one
 *   (wRl = wOpd = 1, no KL, actor π_old) whatever the recipe says.
 *
 * The trainer picks step sizes that make the kind happen on its model (the
 * embedded trainer: lr 1e-2 for reward-inverted, 5e-3 for collapsed, at
 * most 40 collapsed steps). Neither touches the run's own adapter or optimizer.
 */
export const badCandidateParamsSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('collapsed'),
    seed: z.int().min(0),
    /** The conversations to answer with the end-of-turn token (homework first messages). */
    prompts: z.array(z.array(chatMessageSchema).min(1)).min(1),
    /** Stay at or below this update norm (the lab passes 0.9 × the gate's bound). */
    maxUpdateNorm: z.number().positive(),
    /** Written as the manifest's note. */
    note: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('reward-inverted'),
    seed: z.int().min(0),
    /** 1-based; round 1 starts afresh. */
    round: z.int().positive(),
    /** The round that stores the candidate. */
    rounds: z.int().positive(),
    /** Train samples of this round (trainSample.ts), rewards toward markdown. */
    samples: z.array(z.unknown()).min(1),
    note: z.string().min(1),
  }),
]);
export type BadCandidateParams = z.infer<typeof badCandidateParamsSchema>;

export const badCandidateResultSchema = z.object({
  /** true: `adapter` is an injected candidate in the store (version v<step>-<sha8>, kind injected) and manifestPath is set. */
  stored: z.boolean(),
  adapter: z.object({ version: z.string().min(1), sha256, path: z.string().min(1) }),
  manifestPath: z.string().min(1).optional(),
  /** The last optimizer step's loss, for the note. */
  loss: z.number().nullable(),
});
export type BadCandidateResult = z.infer<typeof badCandidateResultSchema>;

export const trainerProtocol = {
  init: { params: initParamsSchema, result: initResultSchema },
  restore: { params: restoreParamsSchema, result: restoreResultSchema },
  step: { params: stepParamsSchema, result: stepResultSchema },
  badCandidate: { params: badCandidateParamsSchema, result: badCandidateResultSchema },
} as const satisfies RpcProtocol;
export type TrainerProtocol = typeof trainerProtocol;

/** What a caller of the trainer protocol holds: one typed call per method (a supervised trainer process is one). */
export interface TrainerCaller {
  call<M extends MethodName<TrainerProtocol>>(
    method: M,
    params: ParamsOf<TrainerProtocol, M>,
    options?: { readonly timeoutMs?: number },
  ): Promise<ResultOf<TrainerProtocol, M>>;
}

/**
 * Error codes a trainer answers with (besides the supervisor's timeout,
 * crashed, not_running, bad_response, start_failed):
 * - `bad_input`: a sample failed validation — nothing computed, no candidate;
 * - `step_refused`: a non-finite loss, gradient or update — the adapter is unchanged, nothing stored;
 * - `not_initialised`: a call before init;
 * - `no_checkpoint`: restore of a version the store does not hold;
 * - `bad_request` / `unknown_method`: the RPC layer's.
 */
export const TRAINER_ERROR_CODES = ['bad_input', 'step_refused', 'not_initialised', 'no_checkpoint', 'bad_request', 'unknown_method'] as const;
export type TrainerErrorCode = (typeof TRAINER_ERROR_CODES)[number];
