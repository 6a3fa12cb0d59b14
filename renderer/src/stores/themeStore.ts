import { create } from 'zustand';

/** What the person chose: follow the system (the default), or always light / dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

export const THEME_CHOICES = ['system', 'light', 'dark'] as const satisfies readonly ThemeChoice[];

/** The key the choice is kept under in the page's localStorage. */
export const THEME_STORAGE_KEY = 'gatelab.theme';

/** The theme on screen: the choice, or the system's when the choice is `system`. */
export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  switch (choice) {
    case 'system':
      return systemDark ? 'dark' : 'light';
    case 'light':
    case 'dark':
      return choice;
  }
}

export function parseThemeChoice(stored: string | null): ThemeChoice {
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

interface ThemeState {
  choice: ThemeChoice;
  /** Whether the system asks for dark (prefers-color-scheme), kept current. */
  systemDark: boolean;
  choose(choice: ThemeChoice): void;
}

function readStoredChoice(): ThemeChoice {
  try {
    return parseThemeChoice(globalThis.localStorage?.getItem(THEME_STORAGE_KEY) ?? null);
  } catch {
    return 'system'; // storage refused (a locked-down profile): follow the system
  }
}

const darkQuery = (): MediaQueryList | null => (typeof globalThis.matchMedia === 'function' ? globalThis.matchMedia('(prefers-color-scheme: dark)') : null);

/** The theme domain: the person's choice and the system's preference. */
export const useThemeStore = create<ThemeState>()((set) => ({
  choice: readStoredChoice(),
  systemDark: darkQuery()?.matches ?? true,
  choose(choice) {
    try {
      globalThis.localStorage?.setItem(THEME_STORAGE_KEY, choice);
    } catch {
      // Not kept across launches; still applied now.
    }
    set({ choice });
  },
}));

/**
 * Keeps <html data-theme> equal to the resolved theme: on the person's
 * choice and whenever the system switches. Called once, in main.tsx.
 */
export function followTheme(root: HTMLElement): () => void {
  const apply = (state: ThemeState) => {
    root.dataset['theme'] = resolveTheme(state.choice, state.systemDark);
  };
  apply(useThemeStore.getState());
  const off = useThemeStore.subscribe(apply);
  const query = darkQuery();
  const onSystem = (event: MediaQueryListEvent) => useThemeStore.setState({ systemDark: event.matches });
  query?.addEventListener('change', onSystem);
  return () => {
    off();
    query?.removeEventListener('change', onSystem);
  };
}
