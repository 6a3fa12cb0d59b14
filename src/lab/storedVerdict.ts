// The criterion's verdict as the run writes it into its files (session
// transcripts, probe evidence), read back for the desktop: validated, then
// narrowed to what VerdictView carries (the files hold more).
import { z } from 'zod';
import { VerdictView } from '../contract';

const span = z.looseObject({ start: z.int().min(0), end: z.int().min(0) });

export const storedVerdictSchema = z.looseObject({
  accepted: z.boolean(),
  reason: VerdictView.shape.reason,
  failures: VerdictView.shape.failures,
  markers: z.array(span.extend({ kind: VerdictView.shape.markers.element.shape.kind })),
  shownWork: z.array(span),
  goldAt: span.nullable(),
});
export type StoredVerdict = z.infer<typeof storedVerdictSchema>;

export function verdictView(v: StoredVerdict): VerdictView {
  return {
    accepted: v.accepted,
    reason: v.reason,
    failures: v.failures,
    markers: v.markers.map((m) => ({ kind: m.kind, start: m.start, end: m.end })),
    shownWork: v.shownWork.map((s) => ({ start: s.start, end: s.end })),
    goldAt: v.goldAt === null ? null : { start: v.goldAt.start, end: v.goldAt.end },
  };
}
