// The verdict as data crossing a boundary (journal lines, worker messages,
// the API to the renderer): validated on the way in, like everything else.

import { z } from 'zod';
import { MARKER_KINDS, REJECT_REASONS, type Verdict } from './criterion';

const spanSchema = z.strictObject({ start: z.int().min(0), end: z.int().min(0) }).refine((s) => s.end > s.start, 'a span must end after it starts');

export const verdictSchema = z
  .strictObject({
    accepted: z.boolean(),
    reason: z.enum(REJECT_REASONS).nullable(),
    failures: z.array(z.enum(REJECT_REASONS)),
    markers: z.array(z.strictObject({ kind: z.enum(MARKER_KINDS), start: z.int().min(0), end: z.int().min(0) })),
    shownWork: z.array(spanSchema),
    goldAt: spanSchema.nullable(),
  })
  .refine((v) => v.accepted === (v.failures.length === 0), 'accepted must mean no failures')
  .refine((v) => v.reason === (v.failures[0] ?? null), 'reason must be the first failure') satisfies z.ZodType<Verdict>;
