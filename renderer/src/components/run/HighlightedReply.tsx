import { useMemo } from 'react';
import type { VerdictView } from '../../../../src/contract/labRuns';
import { highlightSegments, MARKER_LABELS } from '../../lib/highlight';
import type { HighlightTag } from '../../lib/highlight';

function classesOf(tags: readonly HighlightTag[]): string {
  return tags.map((tag) => (tag.kind === 'marker' ? `hl-marker hl-${tag.marker}` : `hl-${tag.kind}`)).join(' ');
}

function titleOf(tags: readonly HighlightTag[]): string {
  return tags
    .map((tag) => (tag.kind === 'marker' ? `AI-style marker: ${MARKER_LABELS[tag.marker]}` : tag.kind === 'work' ? 'shown work' : 'the gold answer'))
    .join(' · ');
}

/**
 * A reply as the verifier saw it: AI-style markers highlighted (red), the
 * shown-work calculations underlined (green) and the gold answer boxed — at
 * the criterion's own offsets, so what is marked is exactly what was judged.
 */
export function HighlightedReply({ text, verdict, testId }: { text: string; verdict: VerdictView; testId?: string }) {
  const segments = useMemo(() => highlightSegments(text, verdict), [text, verdict]);
  if (text.trim() === '') {
    return (
      <div className="reply reply-empty" data-testid={testId}>
        (empty reply)
      </div>
    );
  }
  return (
    <div className="reply" data-testid={testId} data-markers={verdict.markers.length}>
      {segments.map((segment) =>
        segment.tags.length === 0 ? (
          <span key={segment.start}>{segment.text}</span>
        ) : (
          <mark
            key={segment.start}
            className={classesOf(segment.tags)}
            title={titleOf(segment.tags)}
            data-marker={segment.tags.flatMap((tag) => (tag.kind === 'marker' ? [tag.marker] : [])).join(' ') || undefined}
          >
            {segment.text}
          </mark>
        ),
      )}
    </div>
  );
}

/** The legend for HighlightedReply. */
export function HighlightLegend() {
  return (
    <div className="legend-row small">
      <span className="legend-item">
        <mark className="hl-marker">marker</mark> AI-style marker (fails the criterion)
      </span>
      <span className="legend-item">
        <mark className="hl-work">3 + 4 = 7</mark> shown work
      </span>
      <span className="legend-item">
        <mark className="hl-gold">42</mark> gold answer
      </span>
    </div>
  );
}

/** The verdict as chips: accepted, or each failure, and the markers by kind. */
export function VerdictChips({ verdict }: { verdict: VerdictView }) {
  const byKind = new Map<string, number>();
  for (const marker of verdict.markers) byKind.set(marker.kind, (byKind.get(marker.kind) ?? 0) + 1);
  return (
    <div className="chips" data-testid="verdict-chips" data-accepted={verdict.accepted ? 'yes' : 'no'}>
      {verdict.accepted ? (
        <span className="chip chip-good">accepted</span>
      ) : (
        verdict.failures.map((failure) => (
          <span key={failure} className="chip chip-bad">
            {failure === 'style' ? 'AI-style markers' : failure.replace(/-/g, ' ')}
          </span>
        ))
      )}
      {[...byKind].map(([kind, n]) => (
        <span key={kind} className="chip chip-marker">
          {MARKER_LABELS[kind as keyof typeof MARKER_LABELS]} ×{n}
        </span>
      ))}
      <span className="chip">shown work ×{verdict.shownWork.length}</span>
      <span className={`chip ${verdict.goldAt === null ? 'chip-bad' : 'chip-good'}`}>
        {verdict.goldAt === null ? 'gold answer missing' : 'gold answer present'}
      </span>
    </div>
  );
}
