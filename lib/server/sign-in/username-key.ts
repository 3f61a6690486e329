/**
 * The key a username is throttled under: Unicode-normalised (NFKC, so full-width and other
 * compatibility forms collapse), trimmed, inner runs of whitespace made one space, lower-cased.
 * Spellings that differ only in these ways share one failure budget, whichever of them the
 * configured user is called: `Boss`, ` boss ` and `ｂｏｓｓ` are one name to the throttle.
 */
export function usernameKey(username: string): string {
  return username.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
