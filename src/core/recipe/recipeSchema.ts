// The recipe: one YAML file that says everything a run does. The zod schema is
// the single source: TypeScript types are inferred from it and
// recipes/recipe.schema.json is generated from it with the registered backends' sections (src/run/recipeJsonSchema.ts).
// Objects are strict so that a misspelt key is an error, not a silent default.
import { z } from 'zod';
import { statedPreferenceSchema } from '../preference/preferenceRule';

const positiveInt = z.int().positive();
const probability = z.number().min(0).max(1);

/** Where a role runs: the CPU, or a set of GPUs (CUDA_VISIBLE_DEVICES). */
export const deviceSchema = z.union(
  [
    z.literal('cpu'),
    z.strictObject({
      gpus: z.array(z.int().min(0)).min(1).describe('GPU indices, exported as CUDA_VISIBLE_DEVICES'),
    }),
  ],
  { error: 'expected cpu or { gpus: [...] } (a nice value is for serving, probe and trainer only)' },
);

/**
 * A role with its own worker process may also run on the CPU at a lower
 * scheduling priority — how roles that share a few cores share them. Only
 * lowering is allowed (0 normal … 19 lowest), which needs no privilege.
 * `threads` caps its OpenMP threads: torch starts one per core, and where
 * the engines hold those cores its threads wait on each other (a torch step
 * on two busy cores ran 3.4× slower with two threads than with one).
 */
export const workerDeviceSchema = z.union([
  deviceSchema,
  z.strictObject({
    cpu: z.strictObject({
      nice: z.int().min(0).max(19).describe('POSIX nice value of the worker process: 0 normal … 19 lowest priority'),
      threads: positiveInt.optional().describe('OpenMP threads of the worker process (OMP_NUM_THREADS; the torch trainer): default one per core'),
    }),
  }),
]);

/** The device map, one entry per worker role (docs/design.md, Roles and processes). */
export const deviceMapSchema = z.strictObject({
  serving: workerDeviceSchema.describe('the engine that serves the promoted version only'),
  probe: workerDeviceSchema.describe('the engine that probes candidates, isolated from serving'),
  trainer: workerDeviceSchema,
  prm: deviceSchema,
  student: deviceSchema,
});

export const samplingSchema = z.strictObject({
  temperature: z.number().min(0).max(2).default(0.6),
  top_p: z.number().gt(0).max(1).default(0.95),
  top_k: z.int().min(0).default(20),
  max_tokens: positiveInt,
});

/** An OpenAI-compatible endpoint (student, PRM or engine on a GPU host). */
export const endpointSchema = z.strictObject({
  base_url: z.url(),
  model: z.string().min(1),
  api_key_env: z.string().min(1).optional().describe('name of the environment variable holding the key'),
});

export const tasksSchema = z.strictObject({
  source: z
    .enum(['task-set', 'gsm8k-file'])
    .describe(
      "task-set: GateLab's task files (the seeded homework generator writes assets/homework/*.json); " +
        'gsm8k-file: a JSON list of {question, ground_truth_answer} in file order',
    ),
  file: z.string().min(1).describe('the session tasks (relative paths resolve against the recipe file)'),
  probe_file: z.string().min(1).describe('the pinned probe set, disjoint from the session tasks'),
  sessions: positiveInt.describe('how many tasks are brought, one session each, in file order'),
});

export const sessionSchema = z.strictObject({
  max_turns: positiveInt.max(64).default(8),
  scored_reply: z.literal('first').default('first').describe('only the first reply is scored (docs/design.md, A session)'),
});

export const prmSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rule') }),
  z.strictObject({
    kind: z.literal('openai'),
    endpoint: endpointSchema,
    votes: positiveInt.describe('m: votes per turn, plurality wins, a tie is 0'),
  }),
]);

export const hintJudgeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rule'), min_chars: z.int().min(0).default(10) }),
  z.strictObject({ kind: z.literal('openai'), endpoint: endpointSchema, min_chars: z.int().min(0).default(10) }),
]);

export const loraSchema = z.strictObject({
  rank: positiveInt,
  alpha: z.number().positive(),
  target_modules: z.array(z.enum(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'])).min(1),
  dtype: z.enum(['F32', 'BF16', 'F16']).default('F32').describe("the adapter tensors' dtype as the trainer writes them; the gate's verify checks it"),
});

export const lossSchema = z.strictObject({
  w_rl: z.number().min(0).default(1),
  w_opd: z.number().min(0).default(1),
  clip_low: z.number().min(0).default(0.2),
  clip_high: z.number().min(0).default(0.28),
  log_ratio_clamp: z.number().positive().default(20),
  opd_top_k: positiveInt.default(4),
  opd_advantage_clamp: z.number().positive().default(1),
  entropy_coef: z.number().min(0).default(0),
  kl_coef: z.number().min(0).default(0).describe('KL to the base; when > 0 it must reach the objective and be logged'),
  old_logprobs: z
    .enum(['actor', 'rollout'])
    .default('actor')
    .describe(
      "π_old of the ratio and the OPD advantage: 'actor' recomputes it with the trainer's weights at the step (slime's default), 'rollout' takes the serving engine's (--use-rollout-logprobs)",
    ),
});

export const optimizerSchema = z.strictObject({
  kind: z.literal('adam'),
  lr: z.number().positive(),
  schedule: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('constant') }),
      z.strictObject({
        kind: z.literal('linear'),
        steps: positiveInt.describe('steps over which lr falls linearly to lr × min_ratio'),
        min_ratio: probability.default(0.1),
      }),
    ])
    .default({ kind: 'constant' })
    .describe('the reference keeps lr constant; a short run on a tiny model needs the late steps smaller'),
  weight_decay: z.number().min(0).default(0.1),
  betas: z.tuple([probability, probability]).default([0.9, 0.98]),
});

/**
 * The backend sections (policy, trainer, student) hold a `kind` and what that
 * kind needs. The core knows only the part every kind shares — what the lab
 * itself reads — and leaves the rest to the backend registry
 * (src/backends/registry.ts): each kind checks its whole section with its own
 * strict schema, which src/run/recipeSchemas.ts puts in place of these loose
 * ones when a recipe is loaded, and the composition root checks again before
 * anything starts.
 */
const backendKind = z.string().min(1).describe('the backend that fills this part (src/backends/registry.ts lists them)');

/** What the lab reads of every policy: how the sessions sample, how many log-probs each token carries. */
export const policyCommonShape = {
  sampling: samplingSchema,
  logprobs_top_k: positiveInt.default(4),
};

/** What the lab reads of every trainer: how turns become steps, the objective, the optimizer, the adapter. */
export const trainerCommonShape = {
  batch_turns: positiveInt.describe('new judged turns per optimizer step; one step makes one candidate'),
  window_turns: positiveInt
    .optional()
    .describe('judged turns each step trains on: its batch and the newest ones before it (default batch_turns: each turn trains once)'),
  optimizer: optimizerSchema,
  loss: lossSchema,
  lora: loraSchema,
};

export const policySectionSchema = z.looseObject({ kind: backendKind, ...policyCommonShape });
export const trainerSectionSchema = z.looseObject({ kind: backendKind, ...trainerCommonShape });
export const studentSectionSchema = z.looseObject({ kind: backendKind });
export type PolicySection = z.infer<typeof policySectionSchema>;
export type TrainerSection = z.infer<typeof trainerSectionSchema>;
export type StudentSection = z.infer<typeof studentSectionSchema>;

/** The schema of each backend section: the loose ones above, or the registry's strict ones by kind. */
export type BackendSectionSchemas = {
  policy: z.ZodType<PolicySection, unknown>;
  trainer: z.ZodType<TrainerSection, unknown>;
  student: z.ZodType<StudentSection, unknown>;
};

/** The judged turns one step trains on (see window_turns). */
export const windowTurns = (trainer: Pick<TrainerSection, 'batch_turns' | 'window_turns'>): number => trainer.window_turns ?? trainer.batch_turns;

/** Who promotes a candidate that passed every probe round: a person (`manual`), or the gate at once (`auto`). */
export const CONFIRM_MODES = ['manual', 'auto'] as const;
export type ConfirmMode = (typeof CONFIRM_MODES)[number];

export const marginsSchema = z.strictObject({
  pass_rate: probability.describe('largest allowed drop against serving'),
  gold_rate: probability,
  answered_rate: probability,
  mean_violations: z.number().min(0).describe('largest allowed rise in style markers per reply'),
});

export const gateSchema = z.strictObject({
  rounds: positiveInt.default(3),
  probe: z.strictObject({
    problems: positiveInt.describe('how many pinned probe problems each round asks (disjoint from the sessions)'),
    sampling: samplingSchema.describe('max_tokens must be large enough for a complete reply'),
    seeds: z.literal('fresh').default('fresh').describe('a fresh seed each round, candidate and serving paired on it'),
  }),
  margins: marginsSchema,
  floors: z
    .strictObject({ gold_rate: probability.default(0), answered_rate: probability.default(0) })
    .default({ gold_rate: 0, answered_rate: 0 })
    .describe(
      'absolute minimums a candidate must reach whatever serving scores: "no regression" alone cannot reject garbage when serving is already at the floor',
    ),
  max_update_norm: z.number().positive().describe('bound on the Frobenius norm of the LoRA update scale*B*A summed over modules'),
  confirm: z.enum(CONFIRM_MODES).default('manual'),
});

/** One role run as a Ray actor: the resources Ray reserves for it and where it may run. */
export const rayRoleSchema = z.strictObject({
  num_cpus: z.number().min(0).default(1).describe("num_cpus: CPU cores Ray reserves for the role's actor"),
  num_gpus: z
    .number()
    .min(0)
    .optional()
    .describe('num_gpus (default: how many GPUs the device map gives the role); Ray picks them on the node and sets CUDA_VISIBLE_DEVICES'),
  node: z.string().min(1).optional().describe("the node's IP: the actor asks for the resource node:<ip> (Ray gives every node one), so the role runs there"),
  memory: z.int().positive().optional().describe("the actor's memory in bytes"),
});

/**
 * Where the worker roles run (docs/design.md, GPU hosts and scale): `local` (default) starts them on
 * this host; `ray` runs the roles it names as actors of one Ray job per run
 * on an existing Ray cluster, submitted through its job submission REST API.
 * The job's driver connects back to the lab's control endpoint over
 * WebSocket with a per-launch token.
 */
export const runnerSchema = z.union([
  z.literal('local'),
  z.strictObject({
    kind: z.literal('ray'),
    address: z.url().describe("the Ray dashboard's HTTP address (the job submission API), e.g. http://head-node:8265"),
    python: z
      .string()
      .min(1)
      .default('python3')
      .describe("the Python (with Ray) that runs the run's Ray job, GateLab's driver (e.g. $GATELAB_HOME/ray/bin/python)"),
    control: z
      .strictObject({
        bind: z.string().min(1).default('127.0.0.1').describe("the address the lab's control endpoint listens on (loopback unless the cluster is elsewhere)"),
        port: z.int().min(0).max(65535).default(0).describe('0: a free port'),
        advertise: z.string().min(1).optional().describe('the host name or IP the nodes reach the lab at (default: the bind address)'),
      })
      .default({ bind: '127.0.0.1', port: 0 }),
    roles: z
      .strictObject({ trainer: rayRoleSchema.optional(), serving: rayRoleSchema.optional(), probe: rayRoleSchema.optional() })
      .refine((roles) => Object.values(roles).some((r) => r !== undefined), { message: 'name at least one role to run on Ray' })
      .describe("the roles that run on Ray, each an actor of the run's job (the others run on this host)"),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string())
      .default({})
      .describe("environment variables for every Ray role's process (runtime_env env_vars)"),
  }),
]);
export type Runner = z.infer<typeof runnerSchema>;
export type RayRunner = Exclude<Runner, 'local'>;
export type RayRole = z.infer<typeof rayRoleSchema>;

/**
 * A learning claim is a difference between two arms on the same seeds:
 * `trained` (the loop as designed) and `control` (the policy frozen — the
 * trainer is started but never steps, so the sessions, judge, gate and
 * serving run exactly as in the trained arm with the base serving throughout).
 */
export const armSchema = z
  .enum(['trained', 'control'])
  .describe("'trained': the trainer steps; 'control': the same run with the policy frozen (the trainer never steps), for comparison");
export type Arm = z.infer<typeof armSchema>;

/** The whole recipe with the given backend sections; the trainer's window rule holds whatever the kind. */
export function recipeSchemaWith(sections: BackendSectionSchemas) {
  return z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    description: z.string().min(1),
    seed: z.int().min(0),
    tasks: tasksSchema,
    session: sessionSchema,
    preference: statedPreferenceSchema
      .optional()
      .describe("the user's stated preference and its floor judge every reply (absent: the pass criterion; docs/design.md, A stated preference)"),
    student: sections.student,
    judge: z.strictObject({ prm: prmSchema, hint: hintJudgeSchema }),
    policy: sections.policy,
    trainer: sections.trainer.refine((t) => t.window_turns === undefined || t.window_turns >= t.batch_turns, {
      message: 'window_turns must be at least batch_turns',
      path: ['window_turns'],
    }),
    gate: gateSchema,
    devices: deviceMapSchema,
    runner: runnerSchema.default('local'),
    arm: armSchema.default('trained'),
  });
}

/**
 * The recipe with its backend sections checked only for what the core reads
 * (their kind-specific keys pass through unchecked): for a recipe that was
 * checked in full when its run started (the journal's copy). A recipe file
 * is loaded with the registry's schema (src/run/recipeSchemas.ts).
 */
export const recipeSchema = recipeSchemaWith({ policy: policySectionSchema, trainer: trainerSectionSchema, student: studentSectionSchema });
export type RecipeSchema = z.ZodType<Recipe, unknown>;

export type Recipe = z.infer<typeof recipeSchema>;
export type Device = z.infer<typeof deviceSchema>;
export type WorkerDevice = z.infer<typeof workerDeviceSchema>;
export type GateConfig = z.infer<typeof gateSchema>;
export type Margins = z.infer<typeof marginsSchema>;
export type Floors = GateConfig['floors'];
export type Sampling = z.infer<typeof samplingSchema>;
