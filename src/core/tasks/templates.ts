import { evaluate } from './arithmetic';
import {
  cap,
  COLLECTIBLES,
  CROPS,
  DAY_PAIRS,
  EVENTS,
  FRUITS,
  GOODS,
  JOBS,
  LEGGED,
  MONTH_PAIRS,
  pickPerson,
  SHOP_ITEMS,
  SOLD_ITEMS,
  SUPPLIES,
  SWEETS,
  VEHICLES,
} from './entities';
import type { Rng } from './rng';

/**
 * The word-problem templates. A template samples its numbers (`Params`: the
 * instance, independent of wording) and renders a question plus the worked
 * steps. Names, items, phrasing and the order of the facts are drawn at render
 * time, so the same instance can be worded many ways — which is why
 * disjointness between homework, probe and training data is decided on the
 * instance, never on the text.
 */
export type Params = Readonly<Record<string, number>>;

export interface RenderedStep {
  expr: string;
  label: string;
  /** A sentence with `{eq}` where "expr = result" goes; a word always precedes it. */
  text: string;
}

export interface Rendered {
  question: string;
  steps: RenderedStep[];
  /** A sentence with `{a}` where the answer goes. */
  answerText: string;
}

export interface Template {
  readonly id: string;
  /** Numbers for one instance, or null when the draw breaks a constraint (the caller redraws). */
  sample(rng: Rng): Params | null;
  render(p: Params, rng: Rng): Rendered;
}

/** Collects steps while a template renders, evaluating each so later steps can use the value. */
class StepList {
  readonly steps: RenderedStep[] = [];
  add(expr: string, label: string, text: string): number {
    this.steps.push({ expr, label, text });
    return evaluate(expr);
  }
}

const num = (p: Params, key: string): number => {
  const v = p[key];
  if (v === undefined) throw new Error(`template parameter "${key}" missing`);
  return v;
};

/** Join facts (already sentences) after optionally shuffling the movable ones. */
function facts(rng: Rng, fixedFirst: string[], movable: string[]): string {
  return [...fixedFirst, ...rng.shuffle(movable)].join(' ');
}

const RATIO_FEWER: Record<number, string> = { 2: 'half as many', 3: 'a third as many', 4: 'a quarter as many' };
const RATIO_MORE: Record<number, string> = { 2: 'twice as many', 3: 'three times as many', 4: 'four times as many' };
const TIMES: Record<number, string> = { 2: 'twice', 3: 'three times', 4: 'four times', 5: 'five times' };

const soldRatio: Template = {
  id: 'sold-ratio',
  sample(rng) {
    const k = rng.int(2, 4);
    const more = rng.int(0, 1);
    const a = more ? rng.int(6, 60) : k * rng.int(5, 40);
    return { a, k, more };
  },
  render(p, rng) {
    const [a, k, more] = [num(p, 'a'), num(p, 'k'), num(p, 'more')];
    const who = pickPerson(rng);
    const item = rng.pick(SOLD_ITEMS);
    const days = rng.chance(0.5);
    const [m1, m2] = days ? rng.pick(DAY_PAIRS) : rng.pick(MONTH_PAIRS);
    const on = days ? 'on' : 'in';
    // "on Monday" / "in April": the preposition travels with the time word.
    const t1 = `${on} ${m1}`;
    const t2 = `${on} ${m2}`;
    const ratio = more ? RATIO_MORE[k] : RATIO_FEWER[k];
    const s = new StepList();
    const b = s.add(`${a} ${more ? '*' : '/'} ${k}`, `${cap(item)} sold ${t2}`, `${cap(t2)} ${who.pr} sold {eq} ${item}.`);
    s.add(`${a} + ${b}`, `Total ${item} sold`, `Altogether ${who.pr} sold {eq} ${item}.`);
    const question = rng.pick([
      () =>
        `${who.name} sold ${item} to ${a} of ${who.pos} friends ${t1}, and then ${who.pr} sold ${ratio} ${item} ${t2}. How many ${item} did ${who.name} sell altogether ${t1} and ${m2}?`,
      () =>
        `${cap(t1)}, ${who.name} sold ${a} ${item}. ${cap(t2)}, ${who.pr} sold ${ratio} ${item} as ${t1}. How many ${item} did ${who.pr} sell in the two ${days ? 'days' : 'months'} together?`,
      () => `${who.name} sold ${ratio} ${item} ${t2} as ${t1}. If ${who.pr} sold ${a} ${item} ${t1}, how many ${item} did ${who.pr} sell in total?`,
    ])();
    return { question, steps: s.steps, answerText: `${who.name} sold {a} ${item} in total.` };
  },
};

const hourlyWage: Template = {
  id: 'hourly-wage',
  sample(rng) {
    return { r: rng.int(8, 30), h: rng.int(2, 9), d: rng.int(2, 7), bonus: rng.chance(0.4) ? 5 * rng.int(2, 20) : 0 };
  },
  render(p, rng) {
    const [r, h, d, bonus] = [num(p, 'r'), num(p, 'h'), num(p, 'd'), num(p, 'bonus')];
    const who = pickPerson(rng);
    const job = rng.pick(JOBS);
    const s = new StepList();
    const daily = s.add(`${r} * ${h}`, 'Earnings per day', `Each day ${who.pr} earns {eq} dollars.`);
    const total = s.add(`${daily} * ${d}`, `Earnings for ${d} days`, `In ${d} days ${who.pr} earns {eq} dollars.`);
    if (bonus > 0) s.add(`${total} + ${bonus}`, 'Total with the bonus', `With the bonus ${who.pr} gets {eq} dollars.`);
    const bonusFact = bonus > 0 ? [`At the end ${who.pr} also gets a ${bonus}-dollar bonus.`] : [];
    const question = rng
      .pick([
        () =>
          `${who.name} earns ${r} dollars an hour ${job}. ${cap(who.pr)} works ${h} hours a day for ${d} days. ${bonusFact.join('')} How much money does ${who.pr} earn in total?`,
        () =>
          `${facts(rng, [], [`${who.name} works ${h} hours a day ${job}.`, `${cap(who.pos)} pay is ${r} dollars per hour.`])} ${cap(who.pr)} works for ${d} days. ${bonusFact.join('')} How many dollars does ${who.name} make?`,
        () =>
          `${who.name} has a job ${job} that pays ${r} dollars per hour. If ${who.pr} works ${h} hours each day for ${d} days, how much does ${who.pr} earn? ${bonus > 0 ? `Include the ${bonus}-dollar bonus ${who.pr} gets at the end.` : ''}`,
      ])()
      .replace(/\s+/g, ' ')
      .trim();
    return { question, steps: s.steps, answerText: `${who.name} earns {a} dollars.` };
  },
};

const savingGoal: Template = {
  id: 'saving-goal',
  sample(rng) {
    const parents = rng.int(5, 40);
    const k = rng.int(2, 3);
    const saved = rng.int(10, 80);
    const cost = saved + parents * (1 + k) + rng.int(3, 60);
    return { parents, k, saved, cost };
  },
  render(p, rng) {
    const [parents, k, saved, cost] = [num(p, 'parents'), num(p, 'k'), num(p, 'saved'), num(p, 'cost')];
    const who = pickPerson(rng);
    const goal = rng.pick(GOODS);
    const s = new StepList();
    const gp = s.add(`${parents} * ${k}`, 'Money from the grandparents', `${cap(who.pos)} grandparents give {eq} dollars.`);
    const t1 = s.add(`${saved} + ${parents}`, "Money with the parents' gift", `With ${who.pos} parents' money ${who.pr} has {eq} dollars.`);
    const t2 = s.add(`${t1} + ${gp}`, 'Money with both gifts', `Adding the grandparents' gift ${who.pr} has {eq} dollars.`);
    s.add(`${cost} - ${t2}`, 'Money still needed', `So ${who.pr} still needs {eq} dollars.`);
    const question =
      facts(
        rng,
        [`${who.name} is saving for a ${goal.item} that costs ${cost} dollars.`],
        [
          `${cap(who.pr)} has already saved ${saved} dollars.`,
          `${cap(who.pos)} parents give ${who.obj} ${parents} dollars, and ${who.pos} grandparents give ${TIMES[k]} as much as ${who.pos} parents.`,
        ],
      ) +
      ' ' +
      rng.pick([`How much more money does ${who.name} need to buy the ${goal.item}?`, `How many more dollars does ${who.pr} need?`]);
    return { question, steps: s.steps, answerText: `${who.name} needs {a} more dollars.` };
  },
};

const readingPages: Template = {
  id: 'reading-pages',
  sample(rng) {
    const a = rng.int(5, 30);
    const k = rng.int(2, 3);
    const n = a * (1 + k) + 2 * rng.int(5, 60);
    return { n, a, k };
  },
  render(p, rng) {
    const [n, a, k] = [num(p, 'n'), num(p, 'a'), num(p, 'k')];
    const who = pickPerson(rng);
    const s = new StepList();
    const today = s.add(`${a} * ${k}`, 'Pages read today', `Today ${who.pr} read {eq} pages.`);
    const done = s.add(`${a} + ${today}`, 'Pages read so far', `So far ${who.pr} has read {eq} pages.`);
    const left = s.add(`${n} - ${done}`, 'Pages left', `That leaves {eq} pages.`);
    s.add(`${left} / 2`, 'Pages for tomorrow', `Tomorrow ${who.pr} should read {eq} pages.`);
    const question =
      `${who.name} is reading a ${n}-page book. ` +
      facts(rng, [], [`Yesterday ${who.pr} read ${a} pages.`]) +
      ` Today ${who.pr} read ${TIMES[k]} as many pages as yesterday. ` +
      rng.pick([
        `If ${who.pr} wants to read half of the remaining pages tomorrow, how many pages should ${who.pr} read?`,
        `Tomorrow ${who.pr} plans to read half of the pages that are left. How many pages will ${who.pr} read tomorrow?`,
      ]);
    return { question, steps: s.steps, answerText: `${who.name} should read {a} pages tomorrow.` };
  },
};

const shopChange: Template = {
  id: 'shop-change',
  sample(rng) {
    const n1 = rng.int(2, 6),
      p1 = rng.int(2, 9),
      n2 = rng.int(2, 6),
      p2 = rng.int(1, 8);
    const spent = n1 * p1 + n2 * p2;
    const bill = [20, 50, 100].find((b) => b > spent);
    return bill === undefined ? null : { n1, p1, n2, p2, bill };
  },
  render(p, rng) {
    const [n1, p1, n2, p2, bill] = [num(p, 'n1'), num(p, 'p1'), num(p, 'n2'), num(p, 'p2'), num(p, 'bill')];
    const who = pickPerson(rng);
    const [i1, i2] = rng.pick(SHOP_ITEMS);
    const s = new StepList();
    const c1 = s.add(`${n1} * ${p1}`, `Cost of the ${i1}`, `The ${i1} cost {eq} dollars.`);
    const c2 = s.add(`${n2} * ${p2}`, `Cost of the ${i2}`, `The ${i2} cost {eq} dollars.`);
    const total = s.add(`${c1} + ${c2}`, 'Total cost', `Together that is {eq} dollars.`);
    s.add(`${bill} - ${total}`, 'Change', `The change is {eq} dollars.`);
    const question =
      `${who.name} buys ` +
      rng.pick([
        () => `${n1} ${i1} for ${p1} dollars each and ${n2} ${i2} for ${p2} dollars each.`,
        () => `${n2} ${i2} at ${p2} dollars each and ${n1} ${i1} at ${p1} dollars each.`,
      ])() +
      ` ${cap(who.pr)} pays with a ${bill}-dollar bill. ` +
      rng.pick([`How much change does ${who.pr} get back?`, `How many dollars of change should ${who.name} receive?`]);
    return { question, steps: s.steps, answerText: `${who.name} gets {a} dollars back.` };
  },
};

const eggCartons: Template = {
  id: 'egg-cartons',
  sample(rng) {
    const c = rng.pick([6, 10, 12]);
    const d = rng.int(2, 9);
    const e = rng.int(3, 40);
    if ((e * d) % c !== 0) return null;
    return { e, d, c, price: rng.chance(0.5) ? rng.int(2, 6) : 0 };
  },
  render(p, rng) {
    const [e, d, c, price] = [num(p, 'e'), num(p, 'd'), num(p, 'c'), num(p, 'price')];
    const who = pickPerson(rng);
    const s = new StepList();
    const eggs = s.add(`${e} * ${d}`, 'Eggs collected', `In ${d} days the farm collects {eq} eggs.`);
    const cartons = s.add(`${eggs} / ${c}`, 'Cartons filled', `That fills {eq} cartons.`);
    if (price > 0) s.add(`${cartons} * ${price}`, 'Money from the cartons', `Selling them brings in {eq} dollars.`);
    const ask =
      price > 0 ? `${cap(who.pr)} sells each carton for ${price} dollars. How much money does ${who.pr} make?` : `How many cartons does ${who.pr} fill?`;
    const question = rng.pick([
      () => `${who.name}'s hens lay ${e} eggs every day. After ${d} days ${who.pr} packs all the eggs into cartons of ${c}. ${ask}`,
      () =>
        `${who.name} packs eggs into cartons that hold ${c} eggs each. ${cap(who.pos)} farm collects ${e} eggs a day, and ${who.pr} packs the eggs from ${d} days. ${ask}`,
    ])();
    return { question, steps: s.steps, answerText: price > 0 ? `${who.name} makes {a} dollars.` : `${who.name} fills {a} cartons.` };
  },
};

const shareEqually: Template = {
  id: 'share-equally',
  sample(rng) {
    const f = rng.int(2, 8);
    const keep = rng.chance(0.5) ? rng.int(2, 10) : 0;
    const per = rng.int(3, 15);
    const total = f * per + keep;
    const a = rng.int(Math.max(2, Math.floor(total / 3)), total - 2);
    return { a, b: total - a, keep, f };
  },
  render(p, rng) {
    const [a, b, keep, f] = [num(p, 'a'), num(p, 'b'), num(p, 'keep'), num(p, 'f')];
    const who = pickPerson(rng);
    const thing = rng.pick(SWEETS);
    const s = new StepList();
    let have = s.add(`${a} + ${b}`, `${cap(thing)} in all`, `${cap(who.pr)} has {eq} ${thing} in all.`);
    if (keep > 0) have = s.add(`${have} - ${keep}`, `${cap(thing)} to share`, `After keeping some ${who.pr} has {eq} ${thing} to share.`);
    s.add(`${have} / ${f}`, 'Each friend gets', `Each friend gets {eq} ${thing}.`);
    const keepFact = keep > 0 ? ` ${cap(who.pr)} keeps ${keep} for ${who.obj}self and shares the rest` : ` ${cap(who.pr)} shares them`;
    const question =
      facts(rng, [`${who.name} has ${a} ${thing}.`], []) +
      ` ${rng.pick(['Then', 'Later', 'After school'])} ${who.pos} ${rng.pick(['aunt', 'uncle', 'mother', 'father'])} gives ${who.obj} ${b} more.` +
      `${keepFact} equally among ${f} friends. How many ${thing} does each friend get?`;
    return { question, steps: s.steps, answerText: `Each friend gets {a} ${thing}.` };
  },
};

const tripDistance: Template = {
  id: 'trip-distance',
  sample(rng) {
    return { s1: 5 * rng.int(6, 14), h1: rng.int(1, 5), s2: 5 * rng.int(6, 14), h2: rng.int(1, 4) };
  },
  render(p, rng) {
    const [s1, h1, s2, h2] = [num(p, 's1'), num(p, 'h1'), num(p, 's2'), num(p, 'h2')];
    const who = pickPerson(rng);
    const v = rng.pick(VEHICLES);
    const s = new StepList();
    const d1 = s.add(`${s1} * ${h1}`, 'First part of the trip', `First ${who.pr} drives {eq} miles.`);
    const d2 = s.add(`${s2} * ${h2}`, 'Second part of the trip', `Then ${who.pr} drives {eq} miles.`);
    s.add(`${d1} + ${d2}`, 'Total distance', `In total ${who.pr} drives {eq} miles.`);
    const question = rng.pick([
      () =>
        `${who.name} drives ${who.pos} ${v} at ${s1} miles per hour for ${h1} hours, then at ${s2} miles per hour for ${h2} hours. How many miles does ${who.pr} drive in total?`,
      () =>
        `On a trip, ${who.name} first drives for ${h1} hours at ${s1} miles per hour. After a break ${who.pr} drives ${h2} more hours at ${s2} miles per hour. How far does ${who.pr} travel?`,
    ])();
    return { question, steps: s.steps, answerText: `${who.name} drives {a} miles.` };
  },
};

const gardenHarvest: Template = {
  id: 'garden-harvest',
  sample(rng) {
    return { r: rng.int(2, 9), pl: rng.int(3, 12), t: rng.int(2, 9), g: rng.chance(0.5) ? rng.int(3, 20) : 0 };
  },
  render(p, rng) {
    const [r, pl, t, g] = [num(p, 'r'), num(p, 'pl'), num(p, 't'), num(p, 'g')];
    const who = pickPerson(rng);
    const crop = rng.pick(CROPS);
    const s = new StepList();
    const plants = s.add(`${r} * ${pl}`, 'Number of plants', `The garden has {eq} plants.`);
    const total = s.add(`${plants} * ${t}`, `${cap(crop)} picked`, `${cap(who.pr)} picks {eq} ${crop}.`);
    if (g > 0 && g < total) s.add(`${total} - ${g}`, `${cap(crop)} left`, `After giving some away ${who.pr} has {eq} ${crop}.`);
    const give =
      g > 0 && g < total
        ? ` ${cap(who.pr)} gives ${g} ${crop} to a neighbor. How many ${crop} does ${who.pr} have left?`
        : ` How many ${crop} does ${who.pr} pick in all?`;
    const left = g > 0 && g < r * pl * t;
    const question =
      rng.pick([
        () => `${who.name} has a garden with ${r} rows of plants, and each row has ${pl} plants. Each plant gives ${t} ${crop}.`,
        () => `Each of ${who.name}'s plants gives ${t} ${crop}. ${cap(who.pos)} garden has ${r} rows with ${pl} plants in each row.`,
      ])() + give;
    return { question, steps: s.steps, answerText: left ? `${who.name} has {a} ${crop} left.` : `${who.name} picks {a} ${crop}.` };
  },
};

const schoolTeams: Template = {
  id: 'school-teams',
  sample(rng) {
    const c = rng.int(2, 8),
      st = rng.int(18, 32);
    const total = c * st;
    const teams = rng.chance(0.5) ? rng.pick([4, 5, 6]) : 0;
    const g = rng.int(Math.floor(total / 3), Math.floor((2 * total) / 3));
    if (teams > 0 && (total - g) % teams !== 0) return null;
    return { c, st, g, teams };
  },
  render(p, rng) {
    const [c, st, g, teams] = [num(p, 'c'), num(p, 'st'), num(p, 'g'), num(p, 'teams')];
    const s = new StepList();
    const total = s.add(`${c} * ${st}`, 'Students in all', `The school has {eq} students.`);
    const boys = s.add(`${total} - ${g}`, 'Number of boys', `So there are {eq} boys.`);
    if (teams > 0) s.add(`${boys} / ${teams}`, 'Number of teams', `That makes {eq} teams.`);
    const place = rng.pick(['A school', 'A small school', 'The grade', 'A summer camp']);
    const question =
      `${place} has ${c} classes with ${st} students in each class. ${g} of the students are girls and the rest are boys. ` +
      (teams > 0
        ? `The boys are split into teams of ${teams}. How many teams are there?`
        : rng.pick(['How many boys are there?', 'How many of the students are boys?']));
    return { question, steps: s.steps, answerText: teams > 0 ? 'There are {a} teams.' : 'There are {a} boys.' };
  },
};

const lettersPerYear: Template = {
  id: 'letters-pages',
  sample(rng) {
    return { pg: rng.int(2, 6), f: rng.int(2, 5), t: rng.int(2, 3), w: rng.pick([4, 8, 10, 12, 52]) };
  },
  render(p, rng) {
    const [pg, f, t, w] = [num(p, 'pg'), num(p, 'f'), num(p, 't'), num(p, 'w')];
    const who = pickPerson(rng);
    const s = new StepList();
    const per = s.add(`${pg} * ${f}`, 'Pages each time', `Each time ${who.pr} writes {eq} pages.`);
    const week = s.add(`${per} * ${t}`, 'Pages per week', `Every week ${who.pr} writes {eq} pages.`);
    s.add(`${week} * ${w}`, `Pages in ${w} weeks`, `In ${w} weeks ${who.pr} writes {eq} pages.`);
    const times = t === 2 ? 'twice' : 'three times';
    const span = w === 52 ? '52 weeks, which is a year' : `${w} weeks`;
    const question = rng.pick([
      () => `${who.name} writes a ${pg}-page letter to ${f} different friends ${times} a week. How many pages does ${who.pr} write in ${span}?`,
      () =>
        `${times.charAt(0).toUpperCase() + times.slice(1)} a week, ${who.name} sends a ${pg}-page letter to each of ${f} friends. How many pages does ${who.pr} write in ${span}?`,
    ])();
    return { question, steps: s.steps, answerText: `${who.name} writes {a} pages.` };
  },
};

const ticketProfit: Template = {
  id: 'ticket-profit',
  sample(rng) {
    const a = rng.int(10, 60),
      x = rng.int(5, 15),
      c = rng.int(10, 60),
      y = rng.int(2, 8);
    const income = a * x + c * y;
    const cost = rng.int(20, income - 10);
    return y < x ? { a, x, c, y, cost } : null;
  },
  render(p, rng) {
    const [a, x, c, y, cost] = [num(p, 'a'), num(p, 'x'), num(p, 'c'), num(p, 'y'), num(p, 'cost')];
    const event = rng.pick(EVENTS);
    const s = new StepList();
    const ai = s.add(`${a} * ${x}`, 'Adult tickets', `The adult tickets bring in {eq} dollars.`);
    const ci = s.add(`${c} * ${y}`, 'Child tickets', `The child tickets bring in {eq} dollars.`);
    const all = s.add(`${ai} + ${ci}`, 'Total sales', `In total they sell tickets for {eq} dollars.`);
    s.add(`${all} - ${cost}`, 'Profit', `The profit is {eq} dollars.`);
    const question =
      `For ${event}, ` +
      facts(rng, [], [`${a} adult tickets were sold at ${x} dollars each.`, `${c} child tickets were sold at ${y} dollars each.`]).replace(/^./, (ch) =>
        ch.toLowerCase(),
      ) +
      ` Putting on the show cost ${cost} dollars. ` +
      rng.pick(['How much profit was made?', 'How many dollars of profit did they make?']);
    return { question, steps: s.steps, answerText: 'The profit is {a} dollars.' };
  },
};

const familyAges: Template = {
  id: 'family-ages',
  sample(rng) {
    const a = rng.int(4, 15),
      k = rng.int(2, 4),
      d = rng.int(2, 9);
    return a * k - d > 0 ? { a, k, d } : null;
  },
  render(p, rng) {
    const [a, k, d] = [num(p, 'a'), num(p, 'k'), num(p, 'd')];
    const x = pickPerson(rng);
    const y = pickPerson(rng, [x.name]);
    const z = pickPerson(rng, [x.name, y.name]);
    const s = new StepList();
    const by = s.add(`${a} * ${k}`, `${y.name}'s age`, `${y.name} is {eq} years old.`);
    const bz = s.add(`${by} - ${d}`, `${z.name}'s age`, `${z.name} is {eq} years old.`);
    const two = s.add(`${a} + ${by}`, `${x.name} and ${y.name} together`, `Together ${x.name} and ${y.name} are {eq} years old.`);
    s.add(`${two} + ${bz}`, 'Sum of the ages', `Adding ${z.name} gives {eq} years.`);
    const question =
      facts(rng, [`${x.name} is ${a} years old.`], [`${y.name} is ${TIMES[k]} as old as ${x.name}.`]) +
      ` ${z.name} is ${d} years younger than ${y.name}. ` +
      rng.pick(['What is the sum of their ages?', 'How old are the three of them together?']);
    return { question, steps: s.steps, answerText: 'Their ages add up to {a} years.' };
  },
};

const recipeScale: Template = {
  id: 'recipe-scale',
  sample(rng) {
    const n = rng.pick([6, 8, 10, 12, 20, 24]);
    const m = rng.int(2, 6);
    return { n, total: n * m, fl: rng.int(2, 5), su: rng.chance(0.5) ? rng.int(2, 4) : 0 };
  },
  render(p, rng) {
    const [n, total, fl, su] = [num(p, 'n'), num(p, 'total'), num(p, 'fl'), num(p, 'su')];
    const who = pickPerson(rng);
    const bake = rng.pick(['cookies', 'muffins', 'pancakes', 'brownies']);
    const s = new StepList();
    const batches = s.add(`${total} / ${n}`, 'Batches needed', `${cap(who.pr)} needs {eq} batches.`);
    const flour = s.add(`${batches} * ${fl}`, 'Cups of flour', `That takes {eq} cups of flour.`);
    if (su > 0) {
      const sugar = s.add(`${batches} * ${su}`, 'Cups of sugar', `It also takes {eq} cups of sugar.`);
      s.add(`${flour} + ${sugar}`, 'Cups in all', `In all that is {eq} cups.`);
    }
    const recipe =
      su > 0 ? `A recipe for ${n} ${bake} uses ${fl} cups of flour and ${su} cups of sugar.` : `A recipe for ${n} ${bake} uses ${fl} cups of flour.`;
    const ask = su > 0 ? `How many cups of flour and sugar does ${who.pr} need altogether?` : `How many cups of flour does ${who.pr} need?`;
    const question = rng.pick([
      () => `${recipe} ${who.name} wants to make ${total} ${bake}. ${ask}`,
      () => `${who.name} wants to bake ${total} ${bake}. ${recipe} ${ask}`,
    ])();
    return { question, steps: s.steps, answerText: su > 0 ? `${who.name} needs {a} cups.` : `${who.name} needs {a} cups of flour.` };
  },
};

const fuelCost: Template = {
  id: 'fuel-cost',
  sample(rng) {
    const mpg = rng.pick([10, 15, 20, 25, 30]);
    const gallons = rng.int(2, 12);
    const dist = (mpg * gallons) / 2;
    if (!Number.isInteger(dist)) return null;
    return { mpg, dist, price: rng.int(2, 5) };
  },
  render(p, rng) {
    const [mpg, dist, price] = [num(p, 'mpg'), num(p, 'dist'), num(p, 'price')];
    const who = pickPerson(rng);
    const v = rng.pick(VEHICLES);
    const place = rng.pick(['the lake', 'the beach', "a cousin's house", 'the city', 'the mountains']);
    const s = new StepList();
    const round = s.add(`${dist} * 2`, 'Round trip distance', `There and back is {eq} miles.`);
    const gal = s.add(`${round} / ${mpg}`, 'Gallons of gas', `The ${v} uses {eq} gallons.`);
    s.add(`${gal} * ${price}`, 'Cost of gas', `The gas costs {eq} dollars.`);
    const question =
      facts(
        rng,
        [`${who.name} drives to ${place}, which is ${dist} miles away, and back.`],
        [`${cap(who.pos)} ${v} goes ${mpg} miles on one gallon of gas.`, `Gas costs ${price} dollars per gallon.`],
      ) +
      ' ' +
      rng.pick(['How much does the gas for the trip cost?', `How many dollars does ${who.pr} spend on gas?`]);
    return { question, steps: s.steps, answerText: 'The gas costs {a} dollars.' };
  },
};

const collectionGrowth: Template = {
  id: 'collection-growth',
  sample(rng) {
    const a = rng.int(10, 90),
      b = rng.int(2, 12),
      w = rng.int(2, 10);
    const g = rng.int(2, Math.min(40, a + b * w - 1));
    return { a, b, w, g };
  },
  render(p, rng) {
    const [a, b, w, g] = [num(p, 'a'), num(p, 'b'), num(p, 'w'), num(p, 'g')];
    const who = pickPerson(rng);
    const thing = rng.pick(COLLECTIBLES);
    const s = new StepList();
    const added = s.add(`${b} * ${w}`, `New ${thing}`, `${cap(who.pr)} gets {eq} new ${thing}.`);
    const has = s.add(`${a} + ${added}`, `${cap(thing)} before giving any away`, `Then ${who.pr} has {eq} ${thing}.`);
    s.add(`${has} - ${g}`, `${cap(thing)} left`, `After giving some away ${who.pr} has {eq} ${thing}.`);
    const question =
      facts(rng, [`${who.name} has ${a} ${thing}.`], [`Every week ${who.pr} buys ${b} more ${thing}, for ${w} weeks.`]) +
      ` Then ${who.pr} gives ${g} ${thing} to ${who.pos} ${rng.pick(['brother', 'sister', 'cousin', 'best friend'])}. ` +
      rng.pick([`How many ${thing} does ${who.pr} have now?`, `How many ${thing} are left in ${who.pos} collection?`]);
    return { question, steps: s.steps, answerText: `${who.name} has {a} ${thing}.` };
  },
};

const fenceCost: Template = {
  id: 'fence-cost',
  sample(rng) {
    return { l: rng.int(5, 40), w: rng.int(3, 25), price: rng.int(2, 9) };
  },
  render(p, rng) {
    const [l, w, price] = [num(p, 'l'), num(p, 'w'), num(p, 'price')];
    const who = pickPerson(rng);
    const field = rng.pick(['garden', 'yard', 'field', 'pen', 'playground']);
    const s = new StepList();
    const half = s.add(`${l} + ${w}`, 'Length plus width', `The length plus the width is {eq} meters.`);
    const per = s.add(`${half} * 2`, 'Perimeter', `The fence goes around {eq} meters.`);
    s.add(`${per} * ${price}`, 'Cost of the fence', `The fence costs {eq} dollars.`);
    const question =
      `${who.name} wants to put a fence around a rectangular ${field} that is ${l} meters long and ${w} meters wide. ` +
      rng.pick([
        `The fence costs ${price} dollars per meter. How much will the fence cost?`,
        `If fencing costs ${price} dollars a meter, how many dollars will ${who.pr} spend?`,
      ]);
    return { question, steps: s.steps, answerText: 'The fence costs {a} dollars.' };
  },
};

const saleDiscount: Template = {
  id: 'sale-discount',
  sample(rng) {
    const price = rng.int(8, 60),
      off = rng.int(2, 7),
      n = rng.int(2, 6);
    const pay = (price - off) * n;
    const bill = rng.chance(0.5) ? ([50, 100, 200, 500].find((b) => b > pay) ?? 0) : 0;
    return off < price ? { price, off, n, bill } : null;
  },
  render(p, rng) {
    const [price, off, n, bill] = [num(p, 'price'), num(p, 'off'), num(p, 'n'), num(p, 'bill')];
    const who = pickPerson(rng);
    const item = rng.pick(['jackets', 'lamps', 'board games', 'helmets', 'pillows', 'toy cars']);
    const s = new StepList();
    const each = s.add(`${price} - ${off}`, 'Sale price', `On sale each one costs {eq} dollars.`);
    const total = s.add(`${each} * ${n}`, 'Total cost', `For all of them ${who.pr} pays {eq} dollars.`);
    if (bill > 0) s.add(`${bill} - ${total}`, 'Change', `The change is {eq} dollars.`);
    const ask = bill > 0 ? `${cap(who.pr)} pays with a ${bill}-dollar bill. How much change does ${who.pr} get?` : `How much does ${who.pr} pay in total?`;
    const question = rng.pick([
      () => `${cap(item)} usually cost ${price} dollars each, but today they are ${off} dollars off. ${who.name} buys ${n} ${item}. ${ask}`,
      () => `${who.name} buys ${n} ${item}. Each one normally costs ${price} dollars, and the store takes ${off} dollars off each one. ${ask}`,
    ])();
    return { question, steps: s.steps, answerText: bill > 0 ? `${who.name} gets {a} dollars back.` : `${who.name} pays {a} dollars.` };
  },
};

const fruitBags: Template = {
  id: 'fruit-bags',
  sample(rng) {
    const b = rng.int(2, 9),
      a = rng.int(8, 30),
      k = rng.pick([3, 4, 5, 6]);
    const total = a * b;
    const r = rng.int(1, 12);
    return r < total && (total - r) % k === 0 ? { b, a, r, k } : null;
  },
  render(p, rng) {
    const [b, a, r, k] = [num(p, 'b'), num(p, 'a'), num(p, 'r'), num(p, 'k')];
    const who = pickPerson(rng);
    const fruit = rng.pick(FRUITS);
    const s = new StepList();
    const total = s.add(`${b} * ${a}`, `${cap(fruit)} in all`, `There are {eq} ${fruit} in all.`);
    const good = s.add(`${total} - ${r}`, `Good ${fruit}`, `Without the bad ones there are {eq} ${fruit}.`);
    s.add(`${good} / ${k}`, 'Bags filled', `That fills {eq} bags.`);
    const question =
      facts(rng, [`${who.name} has ${b} baskets with ${a} ${fruit} in each basket.`], [`${r} of the ${fruit} are rotten, so ${who.pr} throws them away.`]) +
      ` ${cap(who.pr)} puts the rest into bags of ${k}. ` +
      rng.pick([`How many bags does ${who.pr} fill?`, 'How many bags are filled?']);
    return { question, steps: s.steps, answerText: `${who.name} fills {a} bags.` };
  },
};

const animalLegs: Template = {
  id: 'animal-legs',
  sample(rng) {
    const i = rng.int(0, LEGGED.length - 1);
    let j = rng.int(0, LEGGED.length - 1);
    if (LEGGED[i]?.legs === LEGGED[j]?.legs) j = (i + 4) % LEGGED.length;
    return { i, j, n1: rng.int(2, 30), n2: rng.int(2, 30) };
  },
  render(p, rng) {
    const [n1, n2] = [num(p, 'n1'), num(p, 'n2')];
    const k1 = LEGGED[num(p, 'i')],
      k2 = LEGGED[num(p, 'j')];
    if (!k1 || !k2) throw new Error('animal-legs: bad kind index');
    const who = pickPerson(rng);
    const s = new StepList();
    const l1 = s.add(`${n1} * ${k1.legs}`, `Legs of the ${k1.kind}`, `The ${k1.kind} have {eq} legs.`);
    const l2 = s.add(`${n2} * ${k2.legs}`, `Legs of the ${k2.kind}`, `The ${k2.kind} have {eq} legs.`);
    s.add(`${l1} + ${l2}`, 'Total legs', `Altogether there are {eq} legs.`);
    const question =
      `${who.name}'s farm has ` +
      rng.pick([() => `${n1} ${k1.kind} and ${n2} ${k2.kind}.`, () => `${n1} ${k1.kind}. It also has ${n2} ${k2.kind}.`])() +
      ` ${rng.pick(['How many legs do the animals have in total?', 'How many legs are there altogether?'])}`;
    return { question, steps: s.steps, answerText: 'There are {a} legs.' };
  },
};

const splitBill: Template = {
  id: 'split-bill',
  sample(rng) {
    const n = rng.int(2, 6),
      m = rng.int(8, 25),
      d = rng.int(4, 20);
    const rest = n * m + d;
    const per = Math.ceil((rest + 5) / n);
    const tip = per * n - rest;
    return tip >= 3 ? { n, m, d, tip } : null;
  },
  render(p, rng) {
    const [n, m, d, tip] = [num(p, 'n'), num(p, 'm'), num(p, 'd'), num(p, 'tip')];
    const s = new StepList();
    const meals = s.add(`${n} * ${m}`, 'Cost of the meals', `The meals cost {eq} dollars.`);
    const withD = s.add(`${meals} + ${d}`, 'Meals and dessert', `With the dessert the bill is {eq} dollars.`);
    const all = s.add(`${withD} + ${tip}`, 'Bill with the tip', `Adding the tip makes {eq} dollars.`);
    s.add(`${all} / ${n}`, 'Each person pays', `Each person pays {eq} dollars.`);
    const group = rng.pick(['friends', 'cousins', 'classmates', 'coworkers']);
    const question =
      `A group of ${n} ${group} go out to dinner. ` +
      facts(
        rng,
        [`Each of them orders a meal that costs ${m} dollars.`],
        [`They share a dessert that costs ${d} dollars.`, `They leave a ${tip}-dollar tip.`],
      ) +
      ' ' +
      rng.pick(['If they split the bill equally, how much does each person pay?', 'They split everything evenly. How many dollars does each one pay?']);
    return { question, steps: s.steps, answerText: 'Each person pays {a} dollars.' };
  },
};

const classSupplies: Template = {
  id: 'class-supplies',
  sample(rng) {
    const packs = rng.int(3, 12),
      per = rng.int(6, 24),
      st = rng.int(8, 30),
      k = rng.int(2, 4);
    return packs * per > st * k ? { packs, per, st, k } : null;
  },
  render(p, rng) {
    const [packs, per, st, k] = [num(p, 'packs'), num(p, 'per'), num(p, 'st'), num(p, 'k')];
    const who = pickPerson(rng);
    const item = rng.pick(SUPPLIES);
    const s = new StepList();
    const have = s.add(`${packs} * ${per}`, `${cap(item)} bought`, `${cap(who.pr)} buys {eq} ${item}.`);
    const given = s.add(`${st} * ${k}`, `${cap(item)} handed out`, `${cap(who.pr)} hands out {eq} ${item}.`);
    s.add(`${have} - ${given}`, `${cap(item)} left`, `So ${who.pr} has {eq} ${item} left.`);
    const title = rng.pick(['Ms.', 'Mr.', 'Coach', 'Teacher']);
    const teacher = `${title} ${who.name}`;
    const question =
      facts(rng, [`${teacher} buys ${packs} packs of ${item} with ${per} ${item} in each pack.`], [`There are ${st} students in the class.`]) +
      ` ${cap(who.pr)} gives each student ${k} ${item}. ` +
      rng.pick([`How many ${item} are left over?`, `How many ${item} does ${who.pr} have left?`]);
    return { question, steps: s.steps, answerText: `There are {a} ${item} left.` };
  },
};

export const TEMPLATES: readonly Template[] = [
  soldRatio,
  hourlyWage,
  savingGoal,
  readingPages,
  shopChange,
  eggCartons,
  shareEqually,
  tripDistance,
  gardenHarvest,
  schoolTeams,
  lettersPerYear,
  ticketProfit,
  familyAges,
  recipeScale,
  fuelCost,
  collectionGrowth,
  fenceCost,
  saleDiscount,
  fruitBags,
  animalLegs,
  splitBill,
  classSupplies,
];
