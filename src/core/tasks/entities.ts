import type { Rng } from './rng';

/** A person in a problem, with the pronouns the wording needs. */
export interface Person {
  name: string;
  /** she / he */
  pr: string;
  /** her / him */
  obj: string;
  /** her / his */
  pos: string;
}

const FEMALE = [
  'Natalia',
  'Betty',
  'Julie',
  'Maria',
  'Aisha',
  'Emma',
  'Sofia',
  'Mei',
  'Priya',
  'Olivia',
  'Hannah',
  'Lucia',
  'Fatima',
  'Grace',
  'Nora',
  'Chloe',
  'Ana',
  'Yuki',
  'Zara',
  'Ruth',
  'Ines',
  'Leah',
  'Amara',
  'Tara',
  'Ivy',
  'Rosa',
  'Kim',
  'Lena',
  'Maya',
  'Elif',
] as const;
const MALE = [
  'James',
  'Weng',
  'Ken',
  'Carlos',
  'Omar',
  'Liam',
  'Noah',
  'Ravi',
  'Diego',
  'Tom',
  'Samuel',
  'Ahmed',
  'Lucas',
  'Mateo',
  'Kofi',
  'Ben',
  'Hiro',
  'Ivan',
  'Jamal',
  'Leo',
  'Max',
  'Felix',
  'Arjun',
  'Theo',
  'Marco',
  'Yusuf',
  'Oscar',
  'Eli',
  'Dan',
  'Paul',
] as const;

export function pickPerson(rng: Rng, avoid: readonly string[] = []): Person {
  for (;;) {
    const female = rng.chance(0.5);
    const name = rng.pick(female ? FEMALE : MALE);
    if (avoid.includes(name)) continue;
    return female ? { name, pr: 'she', obj: 'her', pos: 'her' } : { name, pr: 'he', obj: 'him', pos: 'his' };
  }
}

/** Upper-case the first letter (for pronouns that start a sentence). */
export function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const MONTH_PAIRS = [
  ['April', 'May'],
  ['June', 'July'],
  ['March', 'April'],
  ['September', 'October'],
  ['January', 'February'],
  ['November', 'December'],
] as const;
export const DAY_PAIRS = [
  ['Monday', 'Tuesday'],
  ['Saturday', 'Sunday'],
  ['Thursday', 'Friday'],
  ['Wednesday', 'Thursday'],
] as const;
export const SOLD_ITEMS = ['clips', 'cupcakes', 'bracelets', 'cookies', 'candles', 'postcards', 'muffins', 'keychains', 'lemonades', 'stickers'] as const;
export const COLLECTIBLES = ['stamps', 'coins', 'stickers', 'cards', 'marbles', 'shells', 'badges'] as const;
export const SWEETS = ['candies', 'chocolates', 'cookies', 'marbles', 'grapes', 'strawberries', 'crayons'] as const;
export const JOBS = [
  'for babysitting',
  'at the bakery',
  'for tutoring',
  'at the library',
  'for walking dogs',
  'at the grocery store',
  'for mowing lawns',
  'at the cafe',
] as const;
export const GOODS = [
  { item: 'bike', big: true },
  { item: 'wallet', big: false },
  { item: 'guitar', big: true },
  { item: 'tablet', big: true },
  { item: 'pair of shoes', big: false },
  { item: 'backpack', big: false },
  { item: 'video game', big: false },
  { item: 'telescope', big: true },
] as const;
export const SHOP_ITEMS = [
  ['notebooks', 'pens'],
  ['apples', 'oranges'],
  ['shirts', 'hats'],
  ['sandwiches', 'juices'],
  ['books', 'bookmarks'],
  ['plates', 'cups'],
  ['roses', 'tulips'],
  ['pencils', 'erasers'],
] as const;
export const CROPS = ['tomatoes', 'peppers', 'strawberries', 'beans', 'cucumbers', 'apples'] as const;
export const VEHICLES = ['car', 'truck', 'van', 'motorbike'] as const;
export const FRUITS = ['apples', 'oranges', 'pears', 'peaches', 'lemons', 'plums'] as const;
export const EVENTS = ['the school play', 'the concert', 'the science fair', 'the circus show', 'the talent show', 'the museum tour'] as const;
export const LEGGED = [
  { kind: 'dogs', legs: 4 },
  { kind: 'cows', legs: 4 },
  { kind: 'horses', legs: 4 },
  { kind: 'goats', legs: 4 },
  { kind: 'chickens', legs: 2 },
  { kind: 'ducks', legs: 2 },
  { kind: 'geese', legs: 2 },
  { kind: 'spiders', legs: 8 },
] as const;
export const SUPPLIES = ['pencils', 'markers', 'crayons', 'erasers', 'stickers', 'notebooks'] as const;
