import { useEffect } from 'react';
import type { ProbeReplyView } from '../../../../src/contract/labRuns';
import { probeRoundKey, useLabRunStore } from '../../stores/labRunStore';
import { HighlightedReply, VerdictChips } from './HighlightedReply';

/** How a probe reply ended, in words. */
const ENDINGS: Record<ProbeReplyView['finishReason'], string> = {
  stop: 'finished',
  length: 'cut at max_tokens',
  settled: 'stopped: verdict settled',
};

/** One probe round's replies, candidate beside serving on the same problem and seed, markers highlighted. */
export function ProbeReplies({ candidate, round }: { candidate: string; round: number }) {
  const key = probeRoundKey(candidate, round);
  const state = useLabRunStore((s) => s.probeRounds[key]);
  const load = useLabRunStore((s) => s.loadProbeRound);
  useEffect(() => {
    void load(candidate, round);
  }, [candidate, round, load]);
  if (state === undefined || state.status === 'loading') return <p className="muted small">Loading the replies of round {round}…</p>;
  if (state.status === 'error') return <p className="text-bad small">{state.message}</p>;
  return (
    <div className="probe-replies" data-testid={`probe-replies-${candidate}-${round}`}>
      <div className="probe-head">
        <span>
          Round {round}, seed {state.seed}: candidate <code>{candidate}</code>
        </span>
        <span>
          serving <code>{state.servingVersion}</code>
        </span>
      </div>
      {state.pairs.map((pair, i) => (
        <div key={pair.taskId + i} className="probe-pair" data-testid="probe-pair">
          <div className="probe-task muted small">
            {pair.taskId} · gold {pair.gold} · seed {pair.seed}
          </div>
          <div className="probe-side">
            <HighlightedReply text={pair.candidate.text} verdict={pair.candidate.verdict} />
            <VerdictChips verdict={pair.candidate.verdict} />
            <span className="muted small">
              {pair.candidate.completionTokens} tokens · {ENDINGS[pair.candidate.finishReason]}
            </span>
          </div>
          <div className="probe-side">
            <HighlightedReply text={pair.serving.text} verdict={pair.serving.verdict} />
            <VerdictChips verdict={pair.serving.verdict} />
            <span className="muted small">
              {pair.serving.completionTokens} tokens · {ENDINGS[pair.serving.finishReason]}
            </span>
          </div>
        </div>
      ))}
    </div>
  );
}
