import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable called `name` on PATH, or null. */
export function findOnPath(name, pathVariable = process.env.PATH ?? '') {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}
