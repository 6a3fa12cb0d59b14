/**
 * A remote engine's adapters, by content: `setAdapter` names the
 * blob and the adapter_config.json in the lab's weight store, which an engine
 * on another machine cannot see. Before the call goes out, the blob is read
 * and re-hashed here (it must be the sha256 the ref names), uploaded into the
 * connector's scratch folder (`adapters/<sha256>.safetensors`, checked there
 * before it is renamed into place) with its config, and the ref is rewritten
 * to those paths. The engine re-hashes what it loads, as it does locally.
 * Only promoted or probed versions are ever sent (the lab decides which ref
 * each engine gets), and each blob once per connection.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { adapterRefSchema } from '../core/protocols/engineProtocol';
import { sha256Hex } from '../core/weights/weightStore';
import type { RequestMessage } from '../processes/workerMessages';
import type { RemoteCallHooks } from './remoteWorkerProcess';

export function engineAdapterSync(): RemoteCallHooks {
  const uploaded = new Set<string>();
  return {
    async request(request: RequestMessage, files): Promise<RequestMessage> {
      if (request.method !== 'setAdapter' || request.params === null) return request;
      const ref = adapterRefSchema.parse(request.params);
      const blobPath = `adapters/${ref.sha256}.safetensors`;
      const configPath = `adapters/${ref.version}/adapter_config.json`;
      if (!uploaded.has(`${ref.version}/${ref.sha256}`)) {
        const blob = await readFile(ref.path);
        if (sha256Hex(blob) !== ref.sha256) throw new Error(`${ref.version}: ${ref.path} is not ${ref.sha256}`);
        await files.put(blobPath, blob);
        if (ref.adapterConfigPath !== undefined) await files.put(configPath, await readFile(ref.adapterConfigPath));
        uploaded.add(`${ref.version}/${ref.sha256}`);
      }
      const remote = (relative: string) => path.posix.join(files.scratch, relative);
      return {
        ...request,
        params: { ...ref, path: remote(blobPath), ...(ref.adapterConfigPath !== undefined ? { adapterConfigPath: remote(configPath) } : {}) },
      };
    },
    async result(_request, result) {
      return result;
    },
  };
}
