/**
 * A trainer actor's weights, through the job's object store: the trainer
 * protocol names folders and files of the run's weight store, which a
 * trainer on another node cannot see. So it keeps a store of the same
 * layout in its scratch folder, and these hooks move what crosses:
 *
 * - `init`: storeDir becomes `<scratch>/weights` (the lab's store stays the lab's);
 * - `step`: the candidate (blob, adapter_config.json, manifest) and its
 *   checkpoint become objects of the job, and a copy, every file checked
 *   against its sha256 and the manifests, is imported into the lab's store
 *   (WeightStore.importVersion, manifest last) before the answer reaches the
 *   lab — with the lab's own paths, as a local trainer's would be;
 * - `restore {version}`: the version and its checkpoint are placed in the
 *   actor's store from the objects (a restarted actor, on any node, gets
 *   them there; the lab sends only what the cluster no longer holds);
 * - `badCandidate`: a stored candidate likewise; a scratch adapter (the
 *   reward-inverted rounds before the last) is copied to the same place
 *   under the lab's store, checked against the sha256 the answer names.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { badCandidateResultSchema, initParamsSchema, restoreParamsSchema, stepResultSchema } from '../../core/protocols/trainerProtocol';
import { CHECKPOINT_MANIFEST, sha256Hex, WeightStore } from '../../core/weights/weightStore';
import type { RequestMessage } from '../../processes/workerMessages';
import type { RoleCallHooks, RoleFiles } from './rayRole';

/** The actor's store, under its scratch folder. */
const STORE = 'weights';

export function trainerWeights(): RoleCallHooks {
  let store: WeightStore | undefined;
  const labStore = (): WeightStore => {
    if (!store) throw new Error('the trainer was not initialised through this actor');
    return store;
  };
  /** The version's files as the actor's store names them (relative to it), manifests last. */
  const versionFiles = (version: string, sha256: string, checkpoint: boolean) => [
    `blobs/${sha256}.safetensors`,
    `versions/${version}/adapter_config.json`,
    ...(checkpoint ? [`checkpoints/${version}/`] : []),
    `versions/${version}/manifest.json`,
  ];
  const download = async (files: RoleFiles, version: string, sha256: string, withCheckpoint: boolean) => {
    const got = await files.export(versionFiles(version, sha256, withCheckpoint).map((p) => `${STORE}/${p}`));
    const file = (relative: string) => {
      const bytes = got.get(`${STORE}/${relative}`);
      if (!bytes) throw new Error(`${version}: ${relative} did not arrive`);
      return bytes;
    };
    const checkpointFiles = new Map(
      [...got].flatMap(([p, bytes]) => {
        const name = p.slice(`${STORE}/checkpoints/${version}/`.length);
        return p.startsWith(`${STORE}/checkpoints/${version}/`) && name !== CHECKPOINT_MANIFEST ? [[name, bytes] as const] : [];
      }),
    );
    const checkpoint = withCheckpoint ? { manifest: file(`checkpoints/${version}/${CHECKPOINT_MANIFEST}`), files: checkpointFiles } : undefined;
    return labStore().importVersion({
      blob: file(`blobs/${sha256}.safetensors`),
      adapterConfig: file(`versions/${version}/adapter_config.json`),
      manifest: file(`versions/${version}/manifest.json`),
      ...(checkpoint ? { checkpoint } : {}),
    });
  };
  const upload = async (files: RoleFiles, version: string) => {
    const lab = labStore();
    const stored = await lab.get(version);
    const placed: Array<readonly [string, Buffer]> = [
      [`blobs/${stored.sha256}.safetensors`, await readFile(stored.path)],
      [`versions/${version}/adapter_config.json`, await readFile(lab.adapterConfigPath(version))],
    ];
    const checkpoint = await lab.getCheckpoint(version);
    if (checkpoint) {
      for (const [name, bytes] of checkpoint.files) placed.push([`checkpoints/${version}/${name}`, Buffer.from(bytes)]);
      placed.push([`checkpoints/${version}/${CHECKPOINT_MANIFEST}`, await readFile(path.join(lab.checkpointDir(version), CHECKPOINT_MANIFEST))]);
    }
    // Last, as in any store: the version is complete there only now.
    placed.push([`versions/${version}/manifest.json`, await readFile(stored.manifestPath)]);
    await files.place(STORE, placed);
  };

  return {
    async request(request: RequestMessage, files: RoleFiles): Promise<RequestMessage> {
      if (request.method === 'init') {
        store = new WeightStore(initParamsSchema.parse(request.params).storeDir);
        // Passed on as it came, but for the store: the worker validates the params itself.
        return { ...request, params: { ...(request.params as object), storeDir: path.posix.join(files.scratch, STORE) } };
      }
      if (request.method === 'restore') await upload(files, restoreParamsSchema.parse(request.params).version);
      return request;
    },

    async result(request: RequestMessage, result: unknown, files: RoleFiles): Promise<unknown> {
      if (request.method === 'step') {
        const { candidate } = stepResultSchema.parse(result);
        const stored = await download(files, candidate.version, candidate.sha256, true);
        return {
          ...(result as object),
          candidate: { ...candidate, path: stored.path, manifestPath: stored.manifestPath },
          checkpointDir: labStore().checkpointDir(candidate.version),
        };
      }
      if (request.method !== 'badCandidate') return result;
      const answer = badCandidateResultSchema.parse(result);
      if (answer.stored) {
        const stored = await download(files, answer.adapter.version, answer.adapter.sha256, false);
        return { ...(result as object), adapter: { ...answer.adapter, path: stored.path }, manifestPath: stored.manifestPath };
      }
      // A scratch adapter the lab loads into its probe engine: the same place under the lab's store.
      const relative = path.posix.relative(path.posix.join(files.scratch, STORE), answer.adapter.path);
      if (relative === '' || relative.startsWith('..') || path.posix.isAbsolute(relative))
        throw new Error(`${answer.adapter.path} is outside the trainer's store`);
      const bytes = (await files.export([`${STORE}/${relative}`])).get(`${STORE}/${relative}`);
      if (!bytes || sha256Hex(bytes) !== answer.adapter.sha256) throw new Error(`the scratch adapter that arrived is not ${answer.adapter.sha256}`);
      const local = path.join(labStore().root, ...relative.split('/'));
      await mkdir(path.dirname(local), { recursive: true });
      await writeFile(local, bytes);
      return { ...(result as object), adapter: { ...answer.adapter, path: local } };
    },
  };
}
