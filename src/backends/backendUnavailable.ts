/**
 * A backend the recipe asks for that this build or this recipe cannot give:
 * a kind that is not built yet (a vLLM engine), a missing Python environment, or a
 * combination the backend refuses (the embedded trainer under torchrun).
 * The message names what is missing; `reasons` lists each thing, for the
 * desktop's Start page and `gatelab run`.
 */
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
  constructor(readonly reasons: readonly string[]) {
    super(reasons.join('; '));
  }
}

/** Runs a backend factory for its refusals only: the reasons it would throw with, or none. */
export function unavailableReasons(build: () => unknown): string[] {
  try {
    build();
    return [];
  } catch (error) {
    if (error instanceof BackendUnavailableError) return [...error.reasons];
    throw error;
  }
}
