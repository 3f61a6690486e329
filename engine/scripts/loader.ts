import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { OXMQ_VERSION } from '../version';

/** One Lua command, read from `lua/<name>-<numKeys>.lua` with its includes inlined. */
export interface ScriptDefinition {
  name: string;
  numberOfKeys: number;
  lua: string;
}

const INCLUDE_LINE = /^--- @include "([\w-]+)"\s*$/gm;

function findLuaDir(): string {
  // The engine is used from source (tests, the worker runner) and from Next's server bundle;
  // both keep the repository layout, so lua/ sits next to engine/ or under the working dir.
  const candidates = [
    path.resolve(__dirname, '..', '..', 'lua'),
    path.resolve(process.cwd(), 'lua'),
  ];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'includes')));
  if (!found) {
    throw new Error(`OxMQ Lua scripts not found (looked in ${candidates.join(', ')})`);
  }
  return found;
}

/** Inlines `--- @include "name"` lines, each include at most once per script. */
function inlineIncludes(source: string, includesDir: string, seen: Set<string>): string {
  return source.replace(INCLUDE_LINE, (_line, name: string) => {
    if (seen.has(name)) return '';
    seen.add(name);
    const file = path.join(includesDir, `${name}.lua`);
    return inlineIncludes(readFileSync(file, 'utf8'), includesDir, seen);
  });
}

let cached: ScriptDefinition[] | undefined;

export function loadScripts(): ScriptDefinition[] {
  if (cached) return cached;
  const dir = findLuaDir();
  const includesDir = path.join(dir, 'includes');
  cached = readdirSync(dir)
    .filter((file) => file.endsWith('.lua'))
    .map((file) => {
      const match = /^([\w]+)-(\d+)\.lua$/.exec(file);
      if (!match) throw new Error(`Lua script name must be <command>-<numKeys>.lua: ${file}`);
      const source = readFileSync(path.join(dir, file), 'utf8');
      return {
        name: match[1]!,
        numberOfKeys: Number(match[2]),
        lua: inlineIncludes(source, includesDir, new Set()),
      };
    });
  return cached;
}

/** Version-suffixed command name, so two OxMQ versions can share one Redis. */
export function commandName(script: string): string {
  return `${script}:oxmq-${OXMQ_VERSION}`;
}

const registered = new WeakSet<object>();

/**
 * Registers every script on a client as an ioredis custom command. ioredis sends EVALSHA and
 * falls back to EVAL (which also loads the script) when Redis answers NOSCRIPT.
 */
export function registerScripts(client: Redis): void {
  if (registered.has(client)) return;
  for (const script of loadScripts()) {
    client.defineCommand(commandName(script.name), {
      numberOfKeys: script.numberOfKeys,
      lua: script.lua,
    });
  }
  registered.add(client);
}
