/**
 * The student of each session (src/core/protocols/studentProtocol.ts), as
 * the recipe's `student.kind` names it: the `student` part of a backend
 * folder's descriptor (students/studentBackends.ts, registry.ts).
 */
import type { StudentFactory } from '../core/protocols/studentProtocol';
import type { StudentSection } from '../core/recipe/recipeSchema';
import type { StudentContext } from './backendDescriptor';
import { registeredPart } from './registeredPart';
import { backendRegistry, type BackendRegistry } from './registry';

export type StudentBackendOptions = StudentContext;

export function studentBackend(student: StudentSection, options: StudentBackendOptions = {}, registry: BackendRegistry = backendRegistry): StudentFactory {
  return registeredPart(registry, 'student', student.kind).create(student, options);
}
