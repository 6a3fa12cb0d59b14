/**
 * The backends this build has: one line per backend folder. A new engine,
 * trainer or student is its folder (a descriptor, backendDescriptor.ts) and
 * its line below; the recipe's kinds and their sections' schemas
 * (src/run/recipeSchemas.ts, recipes/recipe.schema.json), the environment
 * checks and set-up hints, the placement and the factories all come from
 * here, through the composition root (src/run/composeRun.ts).
 */
import { z } from 'zod';
import type { BackendSectionSchemas, PolicySection, StudentSection, TrainerSection } from '../core/recipe/recipeSchema';
import type { BackendDescriptor, BackendRole, SectionSchema } from './backendDescriptor';
import { embeddedBackend } from './embedded/embeddedBackend';
import { sglangBackend } from './sglang/sglangBackend';
import { openAiStudentBackend, scriptedStudentBackend } from './students/studentBackends';
import { torchBackend } from './torch/torchBackend';
import { vllmBackend } from './vllm/vllmBackend';

const ROLES: readonly BackendRole[] = ['policy', 'trainer', 'student'];

/** What each role is called in messages. */
const ROLE_WORDS: Record<BackendRole, string> = { policy: 'policy engine', trainer: 'trainer', student: 'student' };

export class BackendRegistry {
  private readonly descriptors: BackendDescriptor[] = [];

  constructor(descriptors: readonly BackendDescriptor[]) {
    for (const descriptor of descriptors) this.register(descriptor);
  }

  /**
   * Adds a backend; what it returns removes it again. The product's backends
   * are the lines below; a test registers its own backend for the test's
   * lifetime without editing them.
   */
  register(descriptor: BackendDescriptor): () => void {
    const roles = ROLES.filter((role) => descriptor[role] !== undefined);
    if (roles.length === 0) throw new Error(`backend '${descriptor.kind}' fills no role (policy, trainer or student)`);
    for (const role of roles) {
      if (this.part(role, descriptor.kind)) throw new Error(`a ${ROLE_WORDS[role]} of kind '${descriptor.kind}' is already registered`);
      // The recipe's section is a union on `kind`: the section's own kind must be the descriptor's.
      const kinds = descriptor[role]?.section._zod.propValues?.kind;
      if (!kinds?.has(descriptor.kind) || kinds.size !== 1) {
        throw new Error(`backend '${descriptor.kind}': its ${role} section's kind must be the literal '${descriptor.kind}'`);
      }
    }
    this.descriptors.push(descriptor);
    return () => {
      const index = this.descriptors.indexOf(descriptor);
      if (index >= 0) this.descriptors.splice(index, 1);
    };
  }

  /** Every registered backend, in registration order. */
  list(): readonly BackendDescriptor[] {
    return [...this.descriptors];
  }

  /** The kinds a recipe may name for a role. */
  kinds(role: BackendRole): string[] {
    return this.descriptors.filter((d) => d[role] !== undefined).map((d) => d.kind);
  }

  /** The backend that fills `role` as `kind`, if any. */
  find(role: BackendRole, kind: string): BackendDescriptor | undefined {
    return this.descriptors.find((d) => d.kind === kind && d[role] !== undefined);
  }

  part<R extends BackendRole>(role: R, kind: string): NonNullable<BackendDescriptor[R]> | undefined {
    return this.find(role, kind)?.[role] ?? undefined;
  }

  /** Each role's section as a union of the registered kinds' own strict schemas. */
  sectionSchemas(): BackendSectionSchemas {
    return {
      policy: this.union('policy', this.sections<PolicySection>('policy')),
      trainer: this.union('trainer', this.sections<TrainerSection>('trainer')),
      student: this.union('student', this.sections<StudentSection>('student')),
    };
  }

  private sections<Section>(role: BackendRole): SectionSchema<Section>[] {
    return this.descriptors.flatMap((d) => {
      const part = d[role];
      return part ? [part.section as SectionSchema<unknown> as SectionSchema<Section>] : [];
    });
  }

  private union<Section>(role: BackendRole, sections: SectionSchema<Section>[]): z.ZodType<Section, unknown> {
    const [first, ...rest] = sections;
    if (first === undefined) return z.never({ error: `this build has no ${ROLE_WORDS[role]} backend` });
    const kinds = this.kinds(role);
    return z
      .discriminatedUnion('kind', [first, ...rest], {
        // Only an unknown kind fails the union itself; a known kind's own problems name their fields.
        error: (issue) => (issue.code === 'invalid_union' ? `${unknownKind(issue.input)}; this build has ${kinds.map((k) => `'${k}'`).join(', ')}` : undefined),
      })
      .describe(`the ${ROLE_WORDS[role]}: ${kinds.join(', ')} (src/backends/registry.ts)`);
  }
}

/** What a section with no registered kind is called in the message. */
function unknownKind(section: unknown): string {
  const kind = typeof section === 'object' && section !== null && 'kind' in section ? section.kind : undefined;
  return kind === undefined ? 'no kind given' : `unknown kind ${JSON.stringify(kind)}`;
}

/** The registry of this build. */
export const backendRegistry = new BackendRegistry([embeddedBackend, vllmBackend, sglangBackend, torchBackend, scriptedStudentBackend, openAiStudentBackend]);

export { ROLE_WORDS as backendRoleWords };
