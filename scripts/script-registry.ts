/**
 * Reads lua/ and renders engine/scripts/registry.generated.ts: every command with its key count,
 * the names of its keys and its Lua text (each fragment of lua/includes/ once, inlined into the
 * scripts by engine/scripts/lua-includes.ts as the module loads), so the engine carries its
 * scripts inside its own JavaScript. scripts/generate-script-registry.ts writes the file;
 * test/engine/script-registry.test.ts checks that the committed file is what this renders now.
 *
 * A script is `lua/<name>-<numberOfKeys>.lua` and starts with a `--[[ ... ]]` header that names
 * each key once, in any layout: `KEYS[1] wait  KEYS[2] job hash (what it is)`. A key's name runs
 * from `KEYS[n]` to two spaces, a parenthesis, the next `KEYS[`/`ARGV[` or the end of the line; a
 * leading `Q ` (the queue's key prefix, docs/redis-keys.md) is dropped and the words (split on
 * spaces, `-` and `:`) become one camelCase identifier: `waiting-children` → `waitingChildren`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';

export interface ParsedScript {
  name: string;
  numberOfKeys: number;
  keys: string[];
  /** The file as it is, `--- @include` lines and all. */
  body: string;
}

export class ScriptRegistryError extends Error {}

const FILE_NAME = /^([A-Za-z][A-Za-z0-9]*)-(\d+)\.lua$/;
const HEADER = /^--\[\[([\s\S]*?)\]\]/;
const KEY_ENTRY = /KEYS\[(\d+)\][ \t]*(.*?)(?=[ \t]{2}|[ \t]*\(|[ \t]*KEYS\[|[ \t]*ARGV\[|$)/gm;
const KEY_WORDS = /^[A-Za-z][A-Za-z0-9]*(?:[ :-][A-Za-z0-9]+)*$/;

/** The fragments of `<luaDir>/includes/`, by name, as the files hold them. */
export function readIncludes(luaDir: string): Record<string, string> {
  const dir = path.join(luaDir, 'includes');
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.lua'))
      .sort()
      .map((file) => [file.slice(0, -'.lua'.length), readFileSync(path.join(dir, file), 'utf8')]),
  );
}

/** Throws when a script or fragment includes a fragment that lua/includes/ does not have. */
function checkIncludes(file: string, source: string, includes: Record<string, string>): void {
  for (const [, name] of source.matchAll(/^--- @include "([\w-]+)"\s*$/gm)) {
    if (includes[name!] === undefined) {
      throw new ScriptRegistryError(`${file}: includes "${name!}", not in lua/includes/`);
    }
  }
}

/** `job hash` → `jobHash`, `Q meta` → `meta`; undefined when the text is no key name. */
function keyIdentifier(text: string): string | undefined {
  const words = text.replace(/^Q\s+/, '');
  if (!KEY_WORDS.test(words)) return undefined;
  return words
    .split(/[ :-]/)
    .map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}

/** The key names a script's header gives, checked to be KEYS[1..numberOfKeys], each once. */
export function parseKeyNames(file: string, source: string, numberOfKeys: number): string[] {
  const header = HEADER.exec(source);
  if (!header) throw new ScriptRegistryError(`${file}: no --[[ ... ]] header naming its KEYS`);
  const names = new Map<number, string>();
  for (const [, index, text] of header[1]!.matchAll(KEY_ENTRY)) {
    const position = Number(index);
    if (names.has(position)) {
      throw new ScriptRegistryError(`${file}: KEYS[${position}] is described twice`);
    }
    const name = keyIdentifier(text!.trim());
    if (!name) {
      throw new ScriptRegistryError(
        `${file}: KEYS[${position}] has no name ("${text!.trim()}"): write KEYS[${position}] ` +
          '<words> (description)',
      );
    }
    names.set(position, name);
  }
  const positions = [...names.keys()].sort((a, b) => a - b);
  const expected = Array.from({ length: numberOfKeys }, (_, i) => i + 1);
  if (positions.join() !== expected.join()) {
    throw new ScriptRegistryError(
      `${file}: the header names KEYS[${positions.join(', ') || 'none'}], but the file name ` +
        `says ${numberOfKeys} key(s): expected KEYS[1] to KEYS[${numberOfKeys}]`,
    );
  }
  const keys = expected.map((position) => names.get(position)!);
  const repeated = keys.find((name, i) => keys.indexOf(name) !== i);
  if (repeated) throw new ScriptRegistryError(`${file}: two keys are named ${repeated}`);
  return keys;
}

/** Every script of `luaDir`, sorted by name; `includes` are its fragments (readIncludes). */
export function readScripts(luaDir: string, includes = readIncludes(luaDir)): ParsedScript[] {
  for (const [name, text] of Object.entries(includes))
    checkIncludes(`includes/${name}.lua`, text, includes);
  return readdirSync(luaDir)
    .filter((file) => file.endsWith('.lua'))
    .sort()
    .map((file) => {
      const match = FILE_NAME.exec(file);
      if (!match) {
        throw new ScriptRegistryError(`${file}: a script is named <command>-<numberOfKeys>.lua`);
      }
      const numberOfKeys = Number(match[2]);
      const source = readFileSync(path.join(luaDir, file), 'utf8');
      checkIncludes(file, source, includes);
      return {
        name: match[1]!,
        numberOfKeys,
        keys: parseKeyNames(file, source, numberOfKeys),
        body: source,
      };
    });
}

/** A template literal whose value is exactly `text`. */
function templateLiteral(text: string): string {
  return '`' + text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

const BANNER = `// Generated from lua/ by scripts/generate-script-registry.ts: do not edit.
// After changing a file in lua/, run \`npm run scripts:generate\` and commit the result.`;

/** The source of engine/scripts/registry.generated.ts, formatted as `filepath` asks Prettier. */
export async function renderRegistry(
  scripts: ParsedScript[],
  includes: Record<string, string>,
  filepath: string,
): Promise<string> {
  const tuple = (keys: string[]) => `readonly [${keys.map((key) => `'${key}'`).join(', ')}]`;
  const source = `${BANNER}
import { inlineIncludes } from './lua-includes';
import type { ScriptDefinition } from './script-definition';

/** The names of each script's KEYS, in order, as its header in lua/ gives them. */
export interface ScriptKeyNames {
${scripts.map((s) => `  ${s.name}: ${tuple(s.keys)};`).join('\n')}
}

/** lua/includes/, each fragment once: the scripts below inline them as this module loads. */
const INCLUDES: Readonly<Record<string, string>> = {
${Object.entries(includes)
  .map(([name, text]) => `  '${name}': ${templateLiteral(text)},`)
  .join('\n')}
};

/** Every OxMQ command, with its includes inlined. */
export const SCRIPTS: {
  readonly [Name in keyof ScriptKeyNames]: ScriptDefinition<Name, ScriptKeyNames[Name]>;
} = {
${scripts
  .map(
    (s) => `  ${s.name}: {
    name: '${s.name}',
    numberOfKeys: ${s.numberOfKeys},
    keys: [${s.keys.map((key) => `'${key}'`).join(', ')}],
    lua: inlineIncludes(${templateLiteral(s.body)}, INCLUDES),
  },`,
  )
  .join('\n')}
};
`;
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(source, { ...options, filepath, parser: 'typescript' });
}

export const REGISTRY_FILE = path.join('engine', 'scripts', 'registry.generated.ts');

/** What the generator writes for the repository at `repoRoot`. */
export function renderRepositoryRegistry(repoRoot: string): Promise<string> {
  const luaDir = path.join(repoRoot, 'lua');
  const includes = readIncludes(luaDir);
  return renderRegistry(
    readScripts(luaDir, includes),
    includes,
    path.join(repoRoot, REGISTRY_FILE),
  );
}
