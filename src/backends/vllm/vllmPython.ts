/** The vLLM engine's own Python environment, as pythonEnvironment.json (read by the set-up script too) describes it. */
import { backendPythonSchema } from '../backendPython';
import pythonEnvironment from './pythonEnvironment.json' with { type: 'json' };

export const vllmPython = backendPythonSchema.parse(pythonEnvironment);
