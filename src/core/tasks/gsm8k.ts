import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { evaluate } from './arithmetic';
import { composeFirstMessage } from './student';
import type { Step, Task } from './task';

/**
 * Loads real GSM8K problems for the GPU recipe: a JSON array or JSONL of
 * records with `question` and either `answer` (the worked solution ending
 * `#### N`, with `<<expr=value>>` calculator annotations) or
 * `ground_truth_answer`. Tasks keep file order; homework/N.txt is N = position.
 */
const RecordSchema = z.union([
  z.object({ question: z.string().min(1), answer: z.string().min(1) }),
  z.object({ question: z.string().min(1), ground_truth_answer: z.union([z.string().min(1), z.number()]) }),
]);

export class Gsm8kFormatError extends Error {
  override readonly name = 'Gsm8kFormatError';
}

/** "65,960" → 65960; throws on anything that is not a plain number. */
export function parseGoldNumber(text: string, where: string): number {
  const cleaned = text.trim().replaceAll(',', '').replace(/^\$/, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) throw new Gsm8kFormatError(`${where}: gold answer "${text}" is not a number`);
  return Number(cleaned);
}

/** The `<<expr=value>>` annotations of a GSM8K solution, as steps (value checked when it evaluates). */
export function annotatedSteps(solution: string): Step[] {
  const steps: Step[] = [];
  for (const m of solution.matchAll(/<<([^=<>]+)=([^<>]+)>>/g)) {
    const expr = (m[1] ?? '').trim();
    const stated = Number((m[2] ?? '').replaceAll(',', ''));
    let result: number;
    try {
      result = evaluate(expr);
    } catch {
      continue; // annotations with units or typos carry no checkable step
    }
    if (Number.isFinite(stated) && Math.abs(result - stated) > 1e-6) continue;
    steps.push({ expr, result, label: '', text: 'That is {eq}.' });
  }
  return steps;
}

function parseRecords(text: string, source: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    } catch (err) {
      throw new Gsm8kFormatError(`${source}: invalid JSON: ${(err as Error).message}`);
    }
    throw new Gsm8kFormatError(`${source}: expected a JSON array`);
  }
  return trimmed.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch (err) {
      throw new Gsm8kFormatError(`${source}:${i + 1}: invalid JSON line: ${(err as Error).message}`);
    }
  });
}

export function parseGsm8k(text: string, source: string, limit = Infinity): Task[] {
  const records = parseRecords(text, source);
  const tasks: Task[] = [];
  for (const [i, raw] of records.entries()) {
    if (tasks.length >= limit) break;
    const where = `${source} record ${i + 1}`;
    const rec = RecordSchema.safeParse(raw);
    if (!rec.success) {
      throw new Gsm8kFormatError(`${where}: needs "question" and "answer" or "ground_truth_answer"`);
    }
    const question = rec.data.question.replace(/\s+/g, ' ').trim();
    let answer: number;
    let steps: Step[] = [];
    if ('answer' in rec.data) {
      const m = /####\s*(.+)\s*$/.exec(rec.data.answer);
      if (!m?.[1]) throw new Gsm8kFormatError(`${where}: "answer" does not end with "#### N"`);
      answer = parseGoldNumber(m[1], where);
      steps = annotatedSteps(rec.data.answer);
    } else {
      answer = parseGoldNumber(String(rec.data.ground_truth_answer), where);
    }
    const index = tasks.length + 1;
    tasks.push({
      id: `gsm8k-${String(index).padStart(3, '0')}`,
      index,
      template: 'gsm8k',
      instance: `gsm8k:${createHash('sha256').update(question).digest('hex').slice(0, 16)}`,
      question,
      steps,
      answer,
      answerText: '',
      firstMessage: composeFirstMessage(index, question, 0),
    });
  }
  if (tasks.length === 0) throw new Gsm8kFormatError(`${source}: no problems`);
  return tasks;
}

/** Read GSM8K problems from a local .json or .jsonl file (first `limit`, in file order). */
export function loadGsm8k(path: string, limit = Infinity): Task[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Gsm8kFormatError(`${path}: cannot read: ${(err as Error).message}`);
  }
  return parseGsm8k(text, basename(path), limit);
}
