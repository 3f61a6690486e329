/**
 * Assembles a Lua command from its file and the shared fragments of lua/includes/: every
 * `--- @include "name"` line becomes that fragment (its own includes resolved the same way),
 * each fragment at most once per script, in the order first met. The generated registry holds
 * each fragment once and assembles the scripts when it loads.
 */
const INCLUDE_LINE = /^--- @include "([\w-]+)"\s*$/gm;

export function inlineIncludes(
  source: string,
  includes: Readonly<Record<string, string>>,
  seen: Set<string> = new Set(),
): string {
  return source.replace(INCLUDE_LINE, (_line, name: string): string => {
    if (seen.has(name)) return '';
    seen.add(name);
    const fragment = includes[name];
    if (fragment === undefined) throw new Error(`Lua include "${name}" is not in lua/includes/`);
    return inlineIncludes(fragment, includes, seen);
  });
}
