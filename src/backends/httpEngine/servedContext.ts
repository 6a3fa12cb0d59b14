/**
 * A served context (`policy.max_model_len`) the model cannot hold is refused
 * before anything starts, naming both numbers: an engine that clamped it
 * silently would serve a shorter context than the recipe or the command line
 * asked for, and a client such as OpenClaw would learn so only from a
 * request refused mid-conversation.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { policyConfigSchema, policyShape } from '../../core/weights/policyConfig';

/** Why `maxModelLen` cannot be served on the model in `modelDir`, or null when it can (or none is asked for). */
export function servedContextProblem(maxModelLen: number | undefined, modelDir: string): string | null {
  if (maxModelLen === undefined) return null;
  const configFile = path.join(modelDir, 'config.json');
  let limit: number;
  try {
    limit = policyShape(policyConfigSchema.parse(JSON.parse(readFileSync(configFile, 'utf8')))).maxPositions;
  } catch {
    return null; // an unreadable config fails the engine's own start, with its reason
  }
  if (maxModelLen <= limit) return null;
  return `max_model_len ${maxModelLen} is more than the model's own context of ${limit} tokens (max_position_embeddings in ${configFile}); give at most ${limit}`;
}
