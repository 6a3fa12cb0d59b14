/**
 * A backend that lives outside src/, registered by a test: kind
 * `onnx-folder`, a policy whose section names its model `folder` (not
 * `model_dir`) and a trainer, both real processes — the embedded engine
 * worker and the embedded trainer worker, reached through their public
 * factories exactly as a new backend folder would reach its own. It records
 * what the run asked of it, so a test can tell the run went through it.
 */
import { z } from 'zod';
import type { EngineRole } from '../../../src/core/protocols/engineProtocol';
import { policyCommonShape, trainerCommonShape } from '../../../src/core/recipe/recipeSchema';
import { policyPart, trainerPart, type BackendDescriptor } from '../../../src/backends/backendDescriptor';
import { EMBEDDED_ONNX } from '../../../src/backends/modelFormats';
import { embeddedPolicy } from '../../../src/backends/embedded/embeddedPolicy';
import { embeddedTrainer } from '../../../src/backends/embedded/embeddedTrainer';

/** What the run started through this backend. */
export const onnxFolderUse = { engines: [] as EngineRole[], trainerWorkers: 0 };

export const onnxFolderBackend: BackendDescriptor = {
  kind: 'onnx-folder',
  policy: policyPart({
    section: z.strictObject({
      kind: z.literal('onnx-folder'),
      folder: z.string().min(1).describe('the onnx policy folder (relative to the recipe)'),
      ...policyCommonShape,
    }),
    modelFormat: EMBEDDED_ONNX,
    placement: { gpu: 'optional', rayJob: { refused: 'the onnx-folder test engine runs on this host only' } },
    create: (policy, { resolvePath, tasks }) => {
      const inner = embeddedPolicy(resolvePath(policy.folder), tasks);
      return {
        modelDir: inner.modelDir,
        baseSha256: () => inner.baseSha256(),
        startEngine: (start) => {
          onnxFolderUse.engines.push(start.role);
          return inner.startEngine(start);
        },
        gatewayTokenizer: (engine) => inner.gatewayTokenizer(engine),
      };
    },
  }),
  trainer: trainerPart({
    section: z.strictObject({ kind: z.literal('onnx-folder'), ...trainerCommonShape }),
    trains: [EMBEDDED_ONNX],
    placement: { gpu: 'optional', rayJob: true },
    create: (trainer) => {
      const inner = embeddedTrainer({ ...trainer, kind: 'embedded', launcher: 'local' });
      return {
        ...(inner.maxTokensPerCall !== undefined ? { maxTokensPerCall: inner.maxTokensPerCall } : {}),
        createWorker: (launch) => {
          onnxFolderUse.trainerWorkers += 1;
          return inner.createWorker(launch);
        },
      };
    },
  }),
};
