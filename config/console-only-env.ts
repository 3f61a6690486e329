/**
 * The console's variables, which no process running team code may receive: the worker runner,
 * the demo producer and the sandbox children run processor modules and every dependency they
 * import, and with NEXTAUTH_SECRET any of them could sign an admin session cookie, with
 * OXMQ_USERS or OXMQ_ADMIN_PASSWORD sign in, with OXMQ_METRICS_TOKEN scrape the console.
 *
 * A deny-list rather than an allow-list, on purpose: processors legitimately read variables of
 * their own (DATABASE_URL, their API keys, PATH, HOME, NODE_OPTIONS, TZ, proxies) that no list
 * of ours can name, and an allow-list would break them without a word. What is withheld is
 * every setting only the console reads (config/known-settings.ts, so a console setting added
 * there is withheld with no change here) and the names NextAuth reads on its own. Variables
 * this file does not know are passed on: a team that puts other secrets in the runner's
 * environment gives them to its processors (docs/security.md).
 */
import { KNOWN_SETTINGS } from './known-settings';

/** Read by the console and by no process that runs team code. */
const CONSOLE_ONLY_SETTINGS: ReadonlySet<string> = new Set(
  KNOWN_SETTINGS.filter(
    ({ readBy }) =>
      readBy.includes('console') && !readBy.includes('runner') && !readBy.includes('demo'),
  ).map(({ name }) => name),
);

/**
 * What NextAuth reads on its own (NEXTAUTH_SECRET, NEXTAUTH_URL_INTERNAL, and AUTH_SECRET when
 * NEXTAUTH_SECRET is unset), and any variant of the users setting.
 */
const CONSOLE_ONLY_PREFIXES = ['NEXTAUTH_', 'OXMQ_USERS'] as const;
const CONSOLE_ONLY_NAMES: ReadonlySet<string> = new Set(['AUTH_SECRET']);

export function isConsoleOnlyVariable(name: string): boolean {
  return (
    CONSOLE_ONLY_SETTINGS.has(name) ||
    CONSOLE_ONLY_NAMES.has(name) ||
    CONSOLE_ONLY_PREFIXES.some((prefix) => name.startsWith(prefix))
  );
}
