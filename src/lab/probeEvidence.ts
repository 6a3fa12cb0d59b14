// A probe round's evidence file (runs/<id>/gate/<c>/round-k-seed-S.json,
// written by the release gate): the candidate's and serving's replies to the
// same pinned problems on the same seeds, each with the criterion's verdict.
// Read for the desktop, which shows them side by side with the markers
// highlighted. The path comes from the journal, and is checked to stay
// inside the run folder.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ProbePair, ProbeReplyView } from '../contract';
import { ProbeReplyView as ProbeReplyViewSchema } from '../contract';
import { storedVerdictSchema, verdictView } from './storedVerdict';

const replySchema = z.looseObject({
  taskId: z.string(),
  gold: z.number(),
  seed: z.int().min(0),
  text: z.string(),
  finishReason: z.enum(['stop', 'length', 'settled']),
  completionTokens: z.int().min(0),
  verdict: storedVerdictSchema,
});

const evidenceSchema = z.looseObject({
  id: z.string(),
  round: z.int().positive(),
  seed: z.int().min(0),
  servingVersion: z.string(),
  candidate: z.array(replySchema),
  serving: z.array(replySchema),
});

type Reply = z.infer<typeof replySchema>;

function replyView(r: Reply): ProbeReplyView {
  const v = r.verdict;
  return ProbeReplyViewSchema.parse({
    text: r.text,
    finishReason: r.finishReason,
    completionTokens: r.completionTokens,
    verdict: verdictView(v),
  });
}

export async function readProbeRound(runDir: string, relative: string): Promise<{ seed: number; servingVersion: string; pairs: ProbePair[] }> {
  const root = path.resolve(runDir);
  const file = path.resolve(root, relative);
  if (!file.startsWith(root + path.sep)) throw new Error(`probe evidence ${relative} is outside the run folder`);
  let evidence;
  try {
    evidence = evidenceSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`cannot read the probe evidence ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (evidence.candidate.length !== evidence.serving.length) {
    throw new Error(`${file}: ${evidence.candidate.length} candidate replies but ${evidence.serving.length} serving replies`);
  }
  const pairs = evidence.candidate.map((candidate, i): ProbePair => {
    const serving = evidence.serving[i]!;
    // The pair is only a comparison if both sides answered the same problem on the same seed.
    if (serving.taskId !== candidate.taskId || serving.seed !== candidate.seed) {
      throw new Error(`${file}: reply ${i} is not paired (${candidate.taskId}/${candidate.seed} vs ${serving.taskId}/${serving.seed})`);
    }
    return { taskId: candidate.taskId, gold: candidate.gold, seed: candidate.seed, candidate: replyView(candidate), serving: replyView(serving) };
  });
  return { seed: evidence.seed, servingVersion: evidence.servingVersion, pairs };
}
