/**
 * Dark mode: the system preference (prefers-color-scheme) unless the user picked a theme, which
 * is stored and applied as data-theme on <html> by a tiny inline script before first paint, so
 * a dark-mode user never sees a white flash.
 */
export const THEME_STORAGE_KEY = 'oxmq.theme';
export type ThemeChoice = 'light' | 'dark';

export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t}catch(e){}`;
