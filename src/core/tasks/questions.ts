// The question sets of the preference recipes (docs/design.md, A stated preference):
// short questions that each have one checkable number for an answer — one-step
// arithmetic with small numbers and everyday facts — so that a reply's quality
// floor (does it still answer?) is a script's check, whatever style the user
// prefers. The session set and the probe set share no question. Made by a seeded
// generator (src/core/tasks/writeQuestions.ts writes assets/questions/).
import { createRng, deriveSeed, type Rng } from './rng';
import type { Task, TaskSet } from './task';
import { TOPICS } from './topics';

/** Everyday facts a small chat model knows, each with its number. */
export const FACTS: readonly { q: string; a: number }[] = [
  { q: 'How many days are in a week?', a: 7 },
  { q: 'How many legs does a spider have?', a: 8 },
  { q: 'How many hours are in a day?', a: 24 },
  { q: 'How many minutes are in an hour?', a: 60 },
  { q: 'How many months are in a year?', a: 12 },
  { q: 'How many sides does a triangle have?', a: 3 },
  { q: 'How many legs does a dog have?', a: 4 },
  { q: 'How many wheels does a bicycle have?', a: 2 },
  { q: 'How many continents are there on Earth?', a: 7 },
  { q: 'At how many degrees Celsius does water boil at sea level?', a: 100 },
  { q: 'How many seconds are in a minute?', a: 60 },
  { q: 'How many sides does a square have?', a: 4 },
  { q: 'How many days are in a year that is not a leap year?', a: 365 },
  { q: 'How many players does a soccer team have on the field?', a: 11 },
  { q: 'How many strings does a standard guitar have?', a: 6 },
  { q: 'How many planets are in our solar system?', a: 8 },
  { q: 'How many legs does an insect have?', a: 6 },
  { q: 'How many sides does a hexagon have?', a: 6 },
  { q: 'How many cents are in a dollar?', a: 100 },
  { q: 'How many eggs are in a dozen?', a: 12 },
  { q: 'How many colors are in a rainbow?', a: 7 },
  { q: 'How many weeks are in a year?', a: 52 },
  { q: 'At how many degrees Celsius does water freeze?', a: 0 },
  { q: 'How many fingers are on one human hand?', a: 5 },
  { q: 'How many arms does an octopus have?', a: 8 },
  { q: 'How many sides does an octagon have?', a: 8 },
  { q: 'How many years are in a century?', a: 100 },
  { q: 'How many years are in a decade?', a: 10 },
  { q: 'How many letters are in the English alphabet?', a: 26 },
  { q: 'How many sides does a pentagon have?', a: 5 },
  { q: 'How many wheels does a tricycle have?', a: 3 },
  { q: 'How many legs does a bird have?', a: 2 },
];

const OPERATIONS = [
  { word: 'plus', apply: (x: number, y: number) => x + y, range: [2, 30] },
  { word: 'minus', apply: (x: number, y: number) => x - y, range: [2, 30] },
  { word: 'times', apply: (x: number, y: number) => x * y, range: [2, 12] },
] as const;

/** How a user asks: the question as it is, or with a short lead-in (after which it starts in lower case). */
const ASKINGS = ['{Q}', 'Quick question: {q}', 'Can you tell me this? {Q}', 'I was wondering, {q}'] as const;

function arithmeticQuestion(rng: Rng): { q: string; a: number; instance: string } {
  const op = rng.pick(OPERATIONS);
  let x = rng.int(op.range[0], op.range[1]);
  let y = rng.int(op.range[0], op.range[1]);
  // Answers stay whole and not negative: the larger number first for minus.
  if (op.word === 'minus' && y > x) [x, y] = [y, x];
  return { q: `What is ${x} ${op.word} ${y}?`, a: op.apply(x, y), instance: `${op.word}:${x}:${y}` };
}

function questionTask(id: string, index: number, template: 'arithmetic' | 'fact', instance: string, q: string, a: number, rng: Rng): Task {
  return {
    id,
    index,
    template,
    instance,
    question: q,
    steps: [],
    answer: a,
    answerText: `The answer is {a}.`,
    firstMessage: rng
      .pick(ASKINGS)
      .replace('{Q}', q)
      .replace('{q}', q.charAt(0).toLowerCase() + q.slice(1)),
  };
}

export type QuestionSets = { questions: TaskSet; probe: TaskSet };

/**
 * `sessions` session questions and `probe` probe questions, about a third of each
 * of them facts, the rest arithmetic; no fact and no arithmetic instance is in both.
 */
export function buildQuestionSets(seed = 20261206, sessions = 48, probe = 16): QuestionSets {
  const rng = createRng(deriveSeed(seed, 'questions'));
  const facts = rng.shuffle(FACTS);
  const probeFacts = Math.round(probe / 3);
  const sessionFacts = Math.min(facts.length - probeFacts, Math.round(sessions / 3));
  const seen = new Set<string>();
  const make = (count: number, factPool: readonly { q: string; a: number }[], prefix: string): Task[] => {
    const slots = rng.shuffle([...factPool.map((f) => ({ fact: f })), ...Array.from({ length: count - factPool.length }, () => ({ fact: null }))]);
    return slots.map((slot, i) => {
      if (slot.fact !== null)
        return questionTask(`${prefix}-${String(i + 1).padStart(2, '0')}`, i + 1, 'fact', `fact:${slot.fact.q}`, slot.fact.q, slot.fact.a, rng);
      let made = arithmeticQuestion(rng);
      while (seen.has(made.instance)) made = arithmeticQuestion(rng);
      seen.add(made.instance);
      return questionTask(`${prefix}-${String(i + 1).padStart(2, '0')}`, i + 1, 'arithmetic', made.instance, made.q, made.a, rng);
    });
  };
  const probeTasks = make(probe, facts.slice(0, probeFacts), 'probe');
  const sessionTasks = make(sessions, facts.slice(probeFacts, probeFacts + sessionFacts), 'q');
  return {
    questions: { version: 1, kind: 'homework', seed, tasks: sessionTasks },
    probe: { version: 1, kind: 'probe', seed, tasks: probeTasks },
  };
}

/**
 * The topic questions (src/core/tasks/topics.ts) shuffled by the seed and cut
 * into `sessions` session questions and `probe` probe questions, none in both.
 * A topic's floor is a mention of one of its words, so its `answer` is unused (0).
 */
export function buildTopicSets(seed = 20261206, sessions = 48, probe = 16): QuestionSets {
  if (sessions + probe > TOPICS.length) throw new Error(`${sessions} + ${probe} topic questions asked for; there are ${TOPICS.length}`);
  const topics = createRng(deriveSeed(seed, 'topics')).shuffle(TOPICS);
  const make = (slice: typeof topics, prefix: string): Task[] =>
    slice.map((t, i) => ({
      id: `${prefix}-${String(i + 1).padStart(2, '0')}`,
      index: i + 1,
      template: 'topic',
      instance: `topic:${t.q}`,
      question: t.q,
      steps: [],
      answer: 0,
      answerText: '',
      firstMessage: t.q,
      mentions: [...t.mentions],
    }));
  return {
    questions: { version: 1, kind: 'homework', seed, tasks: make(topics.slice(probe, probe + sessions), 'q') },
    probe: { version: 1, kind: 'probe', seed, tasks: make(topics.slice(0, probe), 'probe') },
  };
}
