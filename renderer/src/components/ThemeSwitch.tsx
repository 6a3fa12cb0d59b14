import { useShallow } from 'zustand/react/shallow';
import { THEME_CHOICES, resolveTheme, useThemeStore, type ThemeChoice } from '../stores/themeStore';

const LABELS: Record<ThemeChoice, { icon: string; text: string }> = {
  system: { icon: '◐', text: 'Follow the system' },
  light: { icon: '☀', text: 'Light' },
  dark: { icon: '☾', text: 'Dark' },
};

/** Light, dark, or the system's theme (the default); the choice is kept in this browser profile. */
export function ThemeSwitch() {
  const { choice, systemDark, choose } = useThemeStore(useShallow((s) => ({ choice: s.choice, systemDark: s.systemDark, choose: s.choose })));
  const shown = resolveTheme(choice, systemDark);
  return (
    <div className="segmented theme-switch" role="group" aria-label="Theme" data-testid="theme-switch" data-theme-shown={shown}>
      {THEME_CHOICES.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={choice === option}
          title={option === 'system' ? `${LABELS.system.text} (now ${shown})` : `${LABELS[option].text} theme`}
          aria-label={option === 'system' ? LABELS.system.text : `${LABELS[option].text} theme`}
          data-testid={`theme-${option}`}
          onClick={() => choose(option)}
        >
          {LABELS[option].icon}
        </button>
      ))}
    </div>
  );
}
