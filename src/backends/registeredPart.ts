import { BackendUnavailableError } from './backendUnavailable';
import type { BackendDescriptor, BackendRole } from './backendDescriptor';
import { backendRoleWords, type BackendRegistry } from './registry';

/** The part that fills `role` as `kind`; a kind this build lacks is refused in words that list what it has. */
export function registeredPart<R extends BackendRole>(registry: BackendRegistry, role: R, kind: string): NonNullable<BackendDescriptor[R]> {
  const part = registry.part(role, kind);
  if (part) return part;
  const known = registry
    .kinds(role)
    .map((k) => `'${k}'`)
    .join(', ');
  throw new BackendUnavailableError([`this build has no ${backendRoleWords[role]} of kind '${kind}' (it has ${known})`]);
}
