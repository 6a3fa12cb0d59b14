import type { MarkerKind, VerdictView } from '../../../src/contract/labRuns';

/** What a stretch of a reply is, for the verifier: an AI-style marker, shown work, the gold answer. */
export type HighlightTag = { kind: 'marker'; marker: MarkerKind } | { kind: 'work' } | { kind: 'gold' };

export interface HighlightSegment {
  start: number;
  end: number;
  text: string;
  tags: HighlightTag[];
}

/** How a person reads each marker kind (the criterion's own words, docs/design.md, The pass criterion). */
export const MARKER_LABELS: Record<MarkerKind, string> = {
  bold: 'bold **…**',
  header: 'markdown header',
  bullet: 'bullet line',
  numbered: 'numbered line',
  boxed: '\\boxed',
  'final-answer': '"final answer:"',
  'rule-line': 'rule / table line',
};

/**
 * Cuts a reply into segments at every span boundary, each segment carrying
 * the spans that cover it. Spans may overlap (a bold word on a numbered line),
 * so this is a sweep over boundaries, not a sequence of non-overlapping
 * spans. Offsets are the criterion's UTF-16 offsets, as JavaScript strings
 * index; spans outside the text are clipped.
 */
export function highlightSegments(text: string, verdict: Pick<VerdictView, 'markers' | 'shownWork' | 'goldAt'>): HighlightSegment[] {
  const spans: { start: number; end: number; tag: HighlightTag }[] = [
    ...verdict.markers.map((m) => ({ start: m.start, end: m.end, tag: { kind: 'marker', marker: m.kind } as const })),
    ...verdict.shownWork.map((s) => ({ start: s.start, end: s.end, tag: { kind: 'work' } as const })),
    ...(verdict.goldAt === null ? [] : [{ start: verdict.goldAt.start, end: verdict.goldAt.end, tag: { kind: 'gold' } as const }]),
  ]
    .map((s) => ({ ...s, start: Math.max(0, Math.min(s.start, text.length)), end: Math.max(0, Math.min(s.end, text.length)) }))
    .filter((s) => s.end > s.start);
  const cuts = new Set<number>([0, text.length]);
  for (const s of spans) {
    cuts.add(s.start);
    cuts.add(s.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const segments: HighlightSegment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i]!;
    const end = points[i + 1]!;
    const tags = spans.filter((s) => s.start <= start && s.end >= end).map((s) => s.tag);
    const previous = segments.at(-1);
    // Neighbouring segments with the same tags are one (fewer DOM nodes, same reading).
    if (previous !== undefined && sameTags(previous.tags, tags)) {
      previous.end = end;
      previous.text = text.slice(previous.start, end);
    } else {
      segments.push({ start, end, text: text.slice(start, end), tags });
    }
  }
  return segments;
}

function tagKey(tag: HighlightTag): string {
  return tag.kind === 'marker' ? `marker:${tag.marker}` : tag.kind;
}

function sameTags(a: readonly HighlightTag[], b: readonly HighlightTag[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map(tagKey));
  return b.every((tag) => keys.has(tagKey(tag)));
}

/** The verdict in a few words: "accepted", or the failures in the criterion's order. */
export function verdictSummary(verdict: Pick<VerdictView, 'accepted' | 'failures'>): string {
  if (verdict.accepted) return 'accepted';
  return verdict.failures.map((f) => (f === 'style' ? 'AI-style markers' : f.replace(/-/g, ' '))).join(' · ');
}
