import type { RejectReason, Verdict } from '../judge/criterion';
import type { Rng } from './rng';
import type { Task } from './task';

/**
 * The scripted student's wording. This is a contract (docs/internals.md): the
 * embedded policy is pretrained on conversations that use exactly these
 * sentences, the session loop sends them, and the rule judge reads them back
 * (a complaint is -1 and its sentences after the opener are the hint). Every
 * function here is pure so the run and the training corpus produce identical
 * text from the same inputs.
 */

/**
 * What the pass criterion can find wrong with a reply: its marker kinds and
 * failure reasons (src/core/judge/criterion.ts calls the rule/table marker
 * `rule-line`; `rule-line/table` is accepted as the same kind).
 */
export const VIOLATION_KINDS = [
  'bold',
  'header',
  'bullet',
  'numbered',
  'boxed',
  'final-answer',
  'rule-line',
  'rule-line/table',
  'no-reply',
  'no-shown-work',
  'no-gold-answer',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

/**
 * What the student reacts to in a reply: each marker kind the criterion saw and each
 * failure but style (the markers name it) and a stated preference's (the homework
 * student states none).
 */
export function violationKinds(verdict: Verdict): ViolationKind[] {
  const kinds = new Set<ViolationKind>(verdict.markers.map((m) => m.kind));
  for (const failure of verdict.failures) if (failure !== 'style' && failure !== 'preference') kinds.add(failure);
  return [...kinds];
}

/** The kinds that are about formatting (an AI look), as opposed to missing work. */
export type StyleKind = Exclude<ViolationKind, 'no-reply' | 'no-shown-work' | 'no-gold-answer'>;

export const DONE = 'HOMEWORK_DONE';

/** The first-message phrasings; `{path}` is homework/N.txt, `{question}` the problem. */
export const FIRST_MESSAGE_PHRASINGS = [
  'My homework is in {path}. Here it is: "{question}" Can you help me solve it? Show me the answer first, and don\'t write to the file until I tell you.',
  'I put my homework in {path}. It says: "{question}" Could you help me solve it? Show me the answer first and don\'t write anything to the file until I say so.',
  'Hi! My homework problem is in {path}: "{question}" Please help me solve it. Show me your answer first, and don\'t write to the file until I tell you to.',
  'Can you help with my homework? It\'s in {path} and reads: "{question}" Show me the answer first. Don\'t write to the file until I tell you.',
] as const;

export function homeworkPath(index: number): string {
  return `homework/${index}.txt`;
}

/** Compose a first message; `phrasing` indexes FIRST_MESSAGE_PHRASINGS. */
export function composeFirstMessage(index: number, question: string, phrasing: number): string {
  const template = FIRST_MESSAGE_PHRASINGS[phrasing];
  if (template === undefined) throw new Error(`no first-message phrasing ${phrasing}`);
  return template.replace('{path}', homeworkPath(index)).replace('{question}', question);
}

/** The student's first message for a task (each task carries its own wording). */
export function firstMessage(task: Pick<Task, 'firstMessage'>): string {
  return task.firstMessage;
}

export const COMPLAINT_OPENERS = [
  'This looks too AI-written.',
  'Hmm, this reads like a chatbot wrote it.',
  'My teacher will know an AI did this.',
  'That does not look like something I would write.',
  'This is way too formatted for homework.',
] as const;

/** How the hindsight names each style marker. */
const MARKER_NAMES: Record<StyleKind, string> = {
  bold: 'the bold',
  header: 'the headings',
  bullet: 'the bullet points',
  numbered: 'the numbered steps',
  boxed: 'the boxed answer',
  'final-answer': 'the "Final answer:" label',
  'rule-line': 'the lines and tables',
  'rule-line/table': 'the lines and tables',
};

/** The style hindsight phrasings; `{markers}` is e.g. "the bold and the numbered steps". */
const STYLE_HINDSIGHTS = [
  'Drop {markers} and write it like a student would, in plain sentences. Redo it naturally and keep every step.',
  'Get rid of {markers} and just write it the way a student would, in normal sentences. Keep every step.',
  'Lose {markers}, please, and use plain sentences like a student writes. Redo it and keep all the steps.',
] as const;

export const WORK_HINDSIGHT = 'Show every calculation step and check the answer again.';

const STYLE_ORDER: readonly StyleKind[] = ['bold', 'header', 'bullet', 'numbered', 'boxed', 'final-answer', 'rule-line', 'rule-line/table'];

function isStyleKind(kind: ViolationKind): kind is StyleKind {
  return (STYLE_ORDER as readonly string[]).includes(kind);
}

/** "a", "a and b", "a, b and c". */
function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

export interface Complaint {
  /** The whole message the student sends: `${opener} ${hindsight}`. */
  text: string;
  opener: string;
  /** The sentences after the opener: what the rule hint judge extracts. */
  hindsight: string;
}

/**
 * The student's complaint about a reply with the given violations (at least
 * one). The hindsight names each style marker seen, in a fixed order, and asks
 * for the work when steps or the right answer are missing.
 */
export function complaintFor(kinds: readonly ViolationKind[], rng: Rng): Complaint {
  if (kinds.length === 0) throw new Error('complaintFor: a clean reply gets no complaint');
  // Both spellings of the rule/table kind name the same marker once.
  const named = STYLE_ORDER.filter((k) => kinds.includes(k)).map((k) => MARKER_NAMES[k]);
  const styles = [...new Set(named)];
  const work = kinds.some((k) => !isStyleKind(k));
  const opener = rng.pick(COMPLAINT_OPENERS);
  const parts: string[] = [];
  if (styles.length > 0) {
    parts.push(rng.pick(STYLE_HINDSIGHTS).replace('{markers}', listPhrase(styles)));
  }
  if (work) parts.push(WORK_HINDSIGHT);
  const hindsight = parts.join(' ');
  return { text: `${opener} ${hindsight}`, opener, hindsight };
}

/**
 * The openers of a user with a stated preference (docs/design.md, A stated
 * preference) when a reply breaks it: the hindsight after one is the user's own
 * statement of the preference, and a request to answer when the reply did not.
 */
export const PREFERENCE_OPENERS = ['That is not how I like my answers.', 'Not like that, please.', 'Remember how I asked you to answer.'] as const;

export const FLOOR_HINDSIGHT = 'And please answer the question I asked.';

/** What the preference user says after a reply the preference verdict rejected (its failures, at least one). */
export function preferenceComplaint(failures: readonly RejectReason[], statement: string, rng: Rng): Complaint {
  if (failures.length === 0) throw new Error('preferenceComplaint: an accepted reply gets no complaint');
  const opener = rng.pick(PREFERENCE_OPENERS);
  const brokeRule = failures.includes('preference') || failures.includes('no-reply');
  const missedFloor = failures.includes('no-gold-answer') || failures.includes('no-reply');
  const hindsight = [...(brokeRule ? [statement] : []), ...(missedFloor ? [FLOOR_HINDSIGHT] : [])].join(' ');
  return { text: `${opener} ${hindsight}`, opener, hindsight };
}

/** The preference user's reply to an accepted answer: progress (+1), and the session ends. */
export const PREFERENCE_THANKS = 'Thanks, that is just how I like it.';

/** Split a student message into opener and hindsight if it is a complaint (for the rule judge). */
export function parseComplaint(message: string): Complaint | null {
  for (const opener of [...COMPLAINT_OPENERS, ...PREFERENCE_OPENERS]) {
    if (message.startsWith(`${opener} `)) {
      return { text: message, opener, hindsight: message.slice(opener.length + 1).trim() };
    }
  }
  return null;
}

/** The request after a clean, correct reply. */
export function saveRequest(task: Pick<Task, 'index'>): string {
  return `Great, that looks right. Please append the answers to ${homeworkPath(task.index)}.`;
}

/**
 * Whether an assistant reply confirms the save the student asked for: it names
 * the file or says it appended/added/saved/wrote. The student then says DONE.
 */
export function confirmsSave(reply: string, task: Pick<Task, 'index'>): boolean {
  if (reply.includes(homeworkPath(task.index))) return true;
  return /\b(appended|added|saved|wrote|written)\b/i.test(reply);
}
