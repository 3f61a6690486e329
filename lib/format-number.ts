/**
 * The one number format of the console: thousands separators with a fixed locale, so the server
 * render and the browser's agree (a browser locale would make hydration differ) and every page
 * writes 1,200 the same way.
 */
const COUNT_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count as the console shows it: `1200` → `1,200`. */
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}
