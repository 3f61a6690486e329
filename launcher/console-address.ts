/**
 * Where the console listens (HOST, loopback unless someone asks for more) and the addresses that
 * follow from it: the one the launcher polls until the console answers, and the origin a
 * browser opens when NEXTAUTH_URL is not set.
 */

/** Listen on every interface: reachable on loopback too. */
const WILDCARDS = new Set(['0.0.0.0', '::']);

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** True when other machines can connect (a wildcard or a non-loopback address). */
export function listensBeyondLoopback(host: string): boolean {
  return !isLoopbackHost(host);
}

/** `host` as it goes in a URL (IPv6 addresses in brackets). */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The console's address as the launcher itself reaches it, e.g. `http://127.0.0.1:3000`. */
export function consoleProbeBase(host: string, port: number): string {
  return `http://${WILDCARDS.has(host) ? '127.0.0.1' : urlHost(host)}:${port}`;
}

/** The origin to open when NEXTAUTH_URL is unset: localhost unless HOST names one address. */
export function defaultConsoleOrigin(host: string, port: number): string {
  if (WILDCARDS.has(host) || isLoopbackHost(host)) return `http://localhost:${port}`;
  return `http://${urlHost(host)}:${port}`;
}
