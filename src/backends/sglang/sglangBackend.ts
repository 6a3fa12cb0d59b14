/**
 * The SGLang backend: each engine role is an SGLang server the lab starts
 * and supervises (sglangPolicy.ts), from its own Python environment
 * (pythonEnvironment.json, requirements.txt). GPU hosts only.
 */
import { policyPart, type BackendDescriptor } from '../backendDescriptor';
import { httpEngineSection } from '../httpEngine/httpEngineSection';
import { HUGGING_FACE } from '../modelFormats';
import { sglangPython } from './sglangPython';
import { sglangPolicy } from './sglangPolicy';

export const sglangPolicySection = httpEngineSection('sglang');

export const sglangBackend: BackendDescriptor = {
  kind: 'sglang',
  python: sglangPython,
  policy: policyPart({
    section: sglangPolicySection,
    modelFormat: HUGGING_FACE,
    // SGLang from PyPI is a CUDA build; no launcher runs its server as a Ray job yet.
    placement: { gpu: 'required', rayJob: { refused: 'an sglang engine as a Ray job is not built yet' } },
    create: (policy, { resolvePath, host, env }) => sglangPolicy(policy, resolvePath, { ...(host ? { host } : {}), ...(env ? { env } : {}) }),
  }),
};
