/**
 * `gatelab export --run DIR --out DIR2 [--version V]`: what leaves the lab —
 * a served version as a PEFT adapter folder (adapter_model.safetensors,
 * adapter_config.json, manifest.json; loadable with PeftModel.from_pretrained
 * on the base) and the run's reports (curve.csv, gate.csv, summary.json,
 * journal.jsonl). Only versions that served can be exported: an unpromoted
 * candidate never leaves through here.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readJournal } from '../../core/journal/appendOnlyJournal';
import { journalEventSchema } from '../../core/journal/journalEvents';
import { sha256Hex } from '../../core/gate/verifyCandidate';
import { foldGateState } from '../../core/gate/gateState';
import { recipeSchema } from '../../core/recipe/recipeSchema';
import { writeRunReport } from '../../run/runReport';
import { runPaths } from '../../run/runFolder';
import { WeightStore } from '../../core/weights/weightStore';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';
import { parseOptions, requireRunDir } from './cliArgs';

export const exportCommand: CliCommand = {
  summary: 'export a served version as a PEFT adapter folder, with the run’s curve, gate table and summary',
  usage: 'Usage: gatelab export --run DIR --out DIR [--version VERSION]   (default: the version serving now)',
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, out: { type: 'string' }, version: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    if (!o.out) throw new UsageError('--out DIR is required');
    const out = path.resolve(o.out);
    const { events } = await readJournal(runPaths(runDir).journal, journalEventSchema);
    const started = events[0];
    if (started?.type !== 'run-started') throw new CliFailure(`${runDir} has no run journal`);
    const recipe = recipeSchema.parse(started.recipe);
    const gate = foldGateState(recipe.gate.rounds, events);
    const wanted = o.version ?? gate.pointer!.version;
    const served = gate.servedVersions.find((p) => p.version === wanted);
    if (!served) throw new CliFailure(`${wanted} never served in this run; served: ${gate.servedVersions.map((p) => p.version).join(', ')}`);
    await mkdir(out, { recursive: true });
    await writeRunReport(runDir, events, recipe.gate.rounds);
    for (const name of ['curve.csv', 'gate.csv', 'summary.json', 'journal.jsonl']) await copyFile(path.join(runDir, name), path.join(out, name));
    if (served.version === 'base') {
      console.log(`${out}: reports only (base serves: there is no adapter to export)`);
      return 0;
    }
    const candidate = [...gate.candidates.values()].find((c) => c.version === served.version && c.sha256 === served.sha256)!;
    const blob = await readFile(path.join(runDir, candidate.blob));
    if (sha256Hex(blob) !== served.sha256) throw new CliFailure(`the blob of ${served.version} no longer matches its hash; refusing to export it`);
    const adapterDir = path.join(out, served.version);
    await mkdir(adapterDir, { recursive: true });
    await copyFile(path.join(runDir, candidate.blob), path.join(adapterDir, 'adapter_model.safetensors'));
    const stored = await new WeightStore(runPaths(runDir).weights).get(served.version).catch(() => null);
    if (stored) {
      await copyFile(stored.manifestPath, path.join(adapterDir, 'manifest.json'));
      await copyFile(path.join(path.dirname(stored.manifestPath), 'adapter_config.json'), path.join(adapterDir, 'adapter_config.json'));
    }
    console.log(`${out}: ${served.version} as a PEFT adapter (${adapterDir}), curve.csv, gate.csv, summary.json, journal.jsonl`);
    return 0;
  },
};
