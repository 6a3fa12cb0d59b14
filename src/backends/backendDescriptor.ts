/**
 * What a backend folder tells the lab about itself: one descriptor object,
 * listed once in the registry (registry.ts). From it the lab takes the
 * recipe's kinds and the schema of each kind's section, what this host must
 * have for the kind to run (its Python environment and the command that
 * makes it), where its processes may run, and the factory that starts it.
 * See src/backends/README.md.
 */
import type { z } from 'zod';
import type { StudentFactory } from '../core/protocols/studentProtocol';
import type { StatedPreference } from '../core/preference/preferenceRule';
import type { PolicySection, Recipe, StudentSection, TrainerSection } from '../core/recipe/recipeSchema';
import type { HostGpus } from '../processes/devices/hostGpus';
import type { BackendPython } from './backendPython';
import type { PolicyBackend, RecipePathResolver } from './policyBackend';
import type { TrainerBackend } from './trainerBackend';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A kind's recipe section: a strict object whose `kind` is a literal (the
 * recipe's sections are unions on `kind`), holding at least the part every
 * kind of its role shares (recipeSchema.ts: policyCommonShape, trainerCommonShape).
 */
export type SectionSchema<Section> = z.ZodType<Section, unknown> & z.core.$ZodTypeDiscriminable;

/** Where a role's processes may run. */
export type PlacementNeeds = {
  /** 'required': its processes cannot start without a GPU, so the device map must give the role one. */
  readonly gpu: 'required' | 'optional';
  /** Whether the role can be a Ray job (recipe `runner: ray`); when it cannot, why not, as a sentence. */
  readonly rayJob: true | { readonly refused: string };
};

/** What every factory is given besides its section. */
type CommonContext = {
  /** Where api_key_env names, GATELAB_HOME and interpreter variables are looked up (process.env by default). */
  env?: Env;
};

export type PolicyContext = CommonContext & {
  /** Resolves a path written in the recipe (relative to the recipe file). */
  resolvePath: RecipePathResolver;
  /** The recipe's task source, when there is a recipe (a backend may refuse tasks its model cannot read). */
  tasks?: Recipe['tasks'];
  /** The host's GPUs, when looked at. */
  host?: HostGpus;
};

export type TrainerContext = CommonContext & { recipe: Recipe };

export type StudentContext = CommonContext & {
  /** The recipe's stated preference, when it names one: the student states it and judges by it. */
  preference?: StatedPreference;
};

/**
 * One role a backend fills. `create` gets its section already checked by
 * `section`, and refuses what this host or this recipe cannot give with a
 * BackendUnavailableError (backendUnavailable.ts) that names each thing.
 */
export type BackendPart<Section, Context, Made> = {
  readonly section: SectionSchema<Section>;
  readonly placement: PlacementNeeds;
  readonly create: (section: Section, context: Context) => Made;
};

export type PolicyPart = BackendPart<PolicySection, PolicyContext, PolicyBackend> & {
  /** The format of the model its engines serve; a trainer names the formats it trains. */
  readonly modelFormat: string;
};

export type TrainerPart = BackendPart<TrainerSection, TrainerContext, TrainerBackend> & {
  /** The model formats it trains (a policy's modelFormat). */
  readonly trains: readonly string[];
};

export type StudentPart = BackendPart<StudentSection, StudentContext, StudentFactory>;

export type BackendDescriptor = {
  /** The name a recipe gives in `policy.kind`, `trainer.kind` or `student.kind`. */
  readonly kind: string;
  /**
   * Its own Python environment, read from the folder's pythonEnvironment.json
   * (the set-up script makes it from the same file); absent: none of its own.
   * Its factory looks for it (findBackendPython) and names the set-up command when it is missing.
   */
  readonly python?: BackendPython;
  readonly policy?: PolicyPart;
  readonly trainer?: TrainerPart;
  readonly student?: StudentPart;
};

export type BackendRole = 'policy' | 'trainer' | 'student';

/**
 * A part whose factory takes its own section's type: the section is parsed
 * with the part's schema before the factory sees it, so each backend reads
 * typed fields while the registry holds every part alike.
 */
type Typed<S, Context, Made> = {
  section: S;
  placement: PlacementNeeds;
  create: (section: z.output<S>, context: Context) => Made;
};

export function policyPart<S extends SectionSchema<PolicySection>>(part: Typed<S, PolicyContext, PolicyBackend> & { modelFormat: string }): PolicyPart {
  return { ...part, create: (section, context) => part.create(part.section.parse(section), context) };
}

export function trainerPart<S extends SectionSchema<TrainerSection>>(
  part: Typed<S, TrainerContext, TrainerBackend> & { trains: readonly string[] },
): TrainerPart {
  return { ...part, create: (section, context) => part.create(part.section.parse(section), context) };
}

export function studentPart<S extends SectionSchema<StudentSection>>(part: Typed<S, StudentContext, StudentFactory>): StudentPart {
  return { ...part, create: (section, context) => part.create(part.section.parse(section), context) };
}
