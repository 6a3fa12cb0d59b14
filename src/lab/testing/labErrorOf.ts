import { LabError } from '../../contract';

/** The LabError `run` throws (a test helper): anything else thrown, or nothing, fails the test. */
export function labErrorOf(run: () => unknown): LabError {
  try {
    run();
  } catch (error) {
    if (error instanceof LabError) return error;
    throw error;
  }
  throw new Error('expected a LabError');
}
