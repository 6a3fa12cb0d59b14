/**
 * A remote trainer's weights, by content: the trainer protocol
 * names folders and files of the run's weight store, which a trainer on
 * another machine cannot see. So the trainer writes into a store in its
 * connector's scratch folder, and these hooks move what crosses:
 *
 * - `init`: storeDir becomes `<scratch>/weights` (the lab's store stays the lab's);
 * - `restore {version}`: the version (blob, adapter_config.json, manifest)
 *   and its checkpoint are uploaded from the lab's store first, each file's
 *   sha256 checked by the connector before it is renamed into place;
 * - `step`: the candidate and its checkpoint are downloaded, every file's
 *   sha256 checked on arrival and against the manifests, and imported into
 *   the lab's store (WeightStore.importVersion, manifest last) before the
 *   answer reaches the lab — with the lab's own paths, so the run reads the
 *   candidate from its own store as it does a local trainer's;
 * - `badCandidate`: a stored candidate likewise; a scratch adapter (the
 *   reward-inverted rounds before the last) is downloaded to the same place
 *   under the lab's store, checked against the sha256 the answer names.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { badCandidateResultSchema, checkpointManifestSchema, initParamsSchema, restoreParamsSchema, stepResultSchema } from '../core/protocols/trainerProtocol';
import { CHECKPOINT_MANIFEST, sha256Hex, WeightStore } from '../core/weights/weightStore';
import type { RequestMessage } from '../processes/workerMessages';
import type { RemoteCallHooks, RemoteFiles } from './remoteWorkerProcess';

/** The remote store's folder under the connector's scratch folder. */
const REMOTE_STORE = 'weights';

export function trainerWeightSync(): RemoteCallHooks {
  let store: WeightStore | undefined;
  /** Versions the remote store holds already (uploaded, or made there). */
  const remoteHas = new Set<string>();
  const labStore = (): WeightStore => {
    if (!store) throw new Error('the trainer was not initialised through this connection');
    return store;
  };
  /** A path the remote trainer answered, relative to its store (it must be inside it). */
  const remoteRelative = (files: RemoteFiles, remotePath: string): string => {
    const relative = path.posix.relative(path.posix.join(files.scratch, REMOTE_STORE), remotePath);
    if (relative === '' || relative.startsWith('..') || path.posix.isAbsolute(relative)) throw new Error(`${remotePath} is outside the remote trainer's store`);
    return relative;
  };
  const download = async (files: RemoteFiles, version: string, sha256: string, withCheckpoint: boolean) => {
    const get = (relative: string) => files.read(`${REMOTE_STORE}/${relative}`);
    const blob = await get(`blobs/${sha256}.safetensors`);
    if (sha256Hex(blob) !== sha256) throw new Error(`${version}: the blob that arrived is not ${sha256}`);
    const adapterConfig = await get(`versions/${version}/adapter_config.json`);
    const manifest = await get(`versions/${version}/manifest.json`);
    let checkpoint: { manifest: Buffer; files: Map<string, Buffer> } | undefined;
    if (withCheckpoint) {
      const checkpointManifest = await get(`checkpoints/${version}/${CHECKPOINT_MANIFEST}`);
      const listed = checkpointManifestSchema.parse(JSON.parse(checkpointManifest.toString('utf8')));
      const checkpointFiles = new Map<string, Buffer>();
      for (const name of Object.keys(listed.files)) checkpointFiles.set(name, await get(`checkpoints/${version}/${name}`));
      checkpoint = { manifest: checkpointManifest, files: checkpointFiles };
    }
    const stored = await labStore().importVersion({ blob, adapterConfig, manifest, ...(checkpoint ? { checkpoint } : {}) });
    remoteHas.add(version);
    return stored;
  };
  const upload = async (files: RemoteFiles, version: string) => {
    const lab = labStore();
    const stored = await lab.get(version);
    const blob = await readFile(stored.path);
    if (sha256Hex(blob) !== stored.sha256) throw new Error(`${version}: the lab's blob does not match its sha256`);
    const put = (relative: string, bytes: Uint8Array) => files.put(`${REMOTE_STORE}/${relative}`, bytes);
    await put(`blobs/${stored.sha256}.safetensors`, blob);
    await put(`versions/${version}/adapter_config.json`, await readFile(lab.adapterConfigPath(version)));
    const checkpoint = await lab.getCheckpoint(version);
    if (checkpoint) {
      for (const [name, bytes] of checkpoint.files) await put(`checkpoints/${version}/${name}`, bytes);
      await put(`checkpoints/${version}/${CHECKPOINT_MANIFEST}`, await readFile(path.join(lab.checkpointDir(version), CHECKPOINT_MANIFEST)));
    }
    // Last, as in any store: the version is complete there only now.
    await put(`versions/${version}/manifest.json`, await readFile(stored.manifestPath));
    remoteHas.add(version);
  };

  return {
    async request(request: RequestMessage, files: RemoteFiles): Promise<RequestMessage> {
      switch (request.method) {
        case 'init': {
          const params = initParamsSchema.parse(request.params);
          store = new WeightStore(params.storeDir);
          remoteHas.clear();
          // Pass the params on as they came, but for the store: the worker validates them itself.
          return { ...request, params: { ...(request.params as object), storeDir: path.posix.join(files.scratch, REMOTE_STORE) } };
        }
        case 'restore': {
          const { version } = restoreParamsSchema.parse(request.params);
          if (!remoteHas.has(version)) await upload(files, version);
          return request;
        }
        default:
          return request;
      }
    },

    async result(request: RequestMessage, result: unknown, files: RemoteFiles): Promise<unknown> {
      switch (request.method) {
        case 'step': {
          const answer = stepResultSchema.parse(result);
          const { version, sha256 } = answer.candidate;
          const stored = await download(files, version, sha256, true);
          return {
            ...(result as object),
            candidate: { ...answer.candidate, path: stored.path, manifestPath: stored.manifestPath },
            checkpointDir: labStore().checkpointDir(version),
          };
        }
        case 'badCandidate': {
          const answer = badCandidateResultSchema.parse(result);
          if (answer.stored) {
            const stored = await download(files, answer.adapter.version, answer.adapter.sha256, false);
            return { ...(result as object), adapter: { ...answer.adapter, path: stored.path }, manifestPath: stored.manifestPath };
          }
          // A scratch adapter the lab loads into its probe engine: the same place under the lab's store.
          const relative = remoteRelative(files, answer.adapter.path);
          const bytes = await files.read(`${REMOTE_STORE}/${relative}`);
          if (sha256Hex(bytes) !== answer.adapter.sha256) throw new Error(`the scratch adapter that arrived is not ${answer.adapter.sha256}`);
          const local = path.join(labStore().root, ...relative.split('/'));
          await mkdir(path.dirname(local), { recursive: true });
          await writeFile(local, bytes);
          return { ...(result as object), adapter: { ...answer.adapter, path: local } };
        }
        default:
          return result;
      }
    },
  };
}
