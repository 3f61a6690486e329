'use client';
import { useEffect, useState } from 'react';
import { THEME_STORAGE_KEY, type ThemeChoice } from './theme';

function effectiveTheme(): ThemeChoice {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<ThemeChoice | null>(null);
  useEffect(() => setTheme(effectiveTheme()), []);
  const next: ThemeChoice = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      onClick={() => {
        document.documentElement.dataset.theme = next;
        window.localStorage.setItem(THEME_STORAGE_KEY, next);
        setTheme(next);
      }}
    >
      {/* The visible text is the accessible name (WCAG 2.5.3): it names what a click does. */}
      {next === 'dark' ? 'Dark theme' : 'Light theme'}
    </button>
  );
}
