/**
 * Where to go after signing in: the `callbackUrl` only when it resolves to this console's own
 * origin, else the overview. Resolving with the URL parser (not a string prefix check) is the
 * point: browsers read `/\evil.example` and `/<tab>/evil.example` as `//evil.example`, another
 * site, which a "starts with one slash" check lets through.
 */
export function safeCallbackPath(callbackUrl: string | null | undefined, origin: string): string {
  if (!callbackUrl) return '/';
  let target: URL;
  try {
    target = new URL(callbackUrl, origin);
  } catch {
    return '/';
  }
  if (target.origin !== new URL(origin).origin) return '/';
  // A path that itself starts with two slashes would be read as another host when followed.
  if (/^[/\\]{2}/.test(target.pathname)) return '/';
  return `${target.pathname}${target.search}${target.hash}`;
}
