// The lab's failures, as the LabApi's error codes: what a person can act on
// (unavailable here, a conflict with the run's state) apart from a bug.
import { LabError } from '../contract';
import { IllegalTransitionError } from '../core/gate/gateState';
import { GateRequestError } from '../core/gate/releaseGate';
import { RecipeError } from '../core/recipe/loadRecipe';
import { RunNotRunnableError } from '../run/recipeBackends';
import { SessionExclusionError } from '../run/live/excludeSession';
import { NotLiveRunError } from '../run/live/liveMode';
import { RunBusyError } from '../run/runFolder';

export function asLabError(error: unknown): LabError {
  if (error instanceof LabError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RunNotRunnableError) return new LabError('unavailable', message, { reasons: [...error.reasons] });
  if (error instanceof RecipeError) return new LabError('unavailable', message, { problems: [...error.problems] });
  if (error instanceof SessionExclusionError) return new LabError('not-found', message);
  if (error instanceof NotLiveRunError) return new LabError('conflict', message);
  if (error instanceof GateRequestError || error instanceof IllegalTransitionError || error instanceof RunBusyError) {
    return new LabError('conflict', message);
  }
  return new LabError('internal', message);
}
