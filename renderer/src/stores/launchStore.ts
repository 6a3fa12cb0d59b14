import { create } from 'zustand';
import type { RecipeChoice, RunFolderInfo } from '../../../src/contract/labRuns';
import { getLab } from '../api/labClient';

interface LaunchState {
  recipes: RecipeChoice[];
  runsDir: string | null;
  runs: RunFolderInfo[];
  /** The recipe to start: the embedded default unless the person picks another. */
  recipe: string | null;
  /** Text fields as typed (validated on Start): empty means the recipe's own value. */
  seed: string;
  sessions: string;
  confirm: 'manual' | 'auto';
  problem: string | null;
  load(): Promise<void>;
  loadRuns(): Promise<void>;
  choose(recipe: string): void;
  setSeed(seed: string): void;
  setSessions(sessions: string): void;
  setConfirm(confirm: 'manual' | 'auto'): void;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The launch domain: which recipes exist and can run here, the start form, and the run folders on disk. */
export const useLaunchStore = create<LaunchState>()((set, get) => ({
  recipes: [],
  runsDir: null,
  runs: [],
  recipe: null,
  seed: '',
  sessions: '',
  confirm: 'manual',
  problem: null,
  async load() {
    const lab = getLab();
    if (lab === null) return;
    try {
      const { recipes, runsDir } = await lab.labRuns.recipes();
      const keep = get().recipe;
      const preselected = recipes.find((r) => r.id === keep && r.runnable) ?? recipes.find((r) => r.isDefault && r.runnable) ?? recipes.find((r) => r.runnable);
      set({ recipes, runsDir, recipe: preselected?.id ?? null, problem: null });
    } catch (error) {
      set({ problem: messageOf(error) });
    }
    await get().loadRuns();
  },
  async loadRuns() {
    const lab = getLab();
    if (lab === null) return;
    try {
      const { runs, runsDir } = await lab.labRuns.list();
      set({ runs, runsDir });
    } catch (error) {
      set({ problem: messageOf(error) });
    }
  },
  choose: (recipe) => set({ recipe }),
  setSeed: (seed) => set({ seed }),
  setSessions: (sessions) => set({ sessions }),
  setConfirm: (confirm) => set({ confirm }),
}));

/** The start form's numbers, or the reason they are not acceptable. */
export function parseLaunchForm(form: { seed: string; sessions: string }, recipe: RecipeChoice): { seed?: number; sessions?: number } | { error: string } {
  const out: { seed?: number; sessions?: number } = {};
  if (form.seed.trim() !== '') {
    const seed = Number(form.seed);
    if (!Number.isInteger(seed) || seed < 0 || seed > 2_147_483_647) return { error: 'The seed must be a whole number from 0 to 2147483647.' };
    out.seed = seed;
  }
  if (form.sessions.trim() !== '') {
    const sessions = Number(form.sessions);
    if (!Number.isInteger(sessions) || sessions < 1 || sessions > recipe.sessions)
      return { error: `Sessions must be a whole number from 1 to ${recipe.sessions}.` };
    out.sessions = sessions;
  }
  return out;
}

/**
 * Live mode's context field: empty keeps the recipe's; otherwise a whole number of tokens
 * (the lab checks it against the model when the engines start and says both numbers).
 */
export function parseServedContext(text: string): { maxModelLen?: number } | { error: string } {
  if (text.trim() === '') return {};
  const tokens = Number(text);
  if (!Number.isInteger(tokens) || tokens < 1 || tokens > 1_048_576) return { error: 'The context must be a whole number of tokens, from 1 to 1048576.' };
  return { maxModelLen: tokens };
}
