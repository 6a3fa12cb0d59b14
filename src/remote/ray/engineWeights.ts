/**
 * An engine actor's adapters, through the job's object store: `setAdapter`
 * names the blob and adapter_config.json in the lab's weight store, which an
 * engine on another node cannot see. Before the call goes out, the blob
 * (re-hashed here: it must be the sha256 the ref names) and its config are
 * placed in the actor's scratch folder — from the object a trainer actor
 * made, or sent once where the cluster holds no copy — and the ref is
 * rewritten to those paths. The engine re-hashes what it loads, as it does
 * locally. Only promoted or probed versions are ever placed: the lab decides
 * which ref each engine gets.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { adapterRefSchema } from '../../core/protocols/engineProtocol';
import { sha256Hex } from '../../core/weights/weightStore';
import type { RoleCallHooks } from './rayRole';

export function engineWeights(): RoleCallHooks {
  return {
    async request(request, files) {
      if (request.method !== 'setAdapter' || request.params === null) return request;
      const ref = adapterRefSchema.parse(request.params);
      const blob = await readFile(ref.path);
      if (sha256Hex(blob) !== ref.sha256) throw new Error(`${ref.version}: ${ref.path} is not ${ref.sha256}`);
      const config = ref.adapterConfigPath !== undefined ? [['adapter_config.json', await readFile(ref.adapterConfigPath)] as const] : [];
      const folder = await files.place(`adapters/${ref.version}`, [['adapter.safetensors', blob], ...config]);
      const configPath = config.length > 0 ? { adapterConfigPath: path.posix.join(folder, 'adapter_config.json') } : {};
      return { ...request, params: { ...ref, path: path.posix.join(folder, 'adapter.safetensors'), ...configPath } };
    },
    async result(_request, result) {
      return result;
    },
  };
}
