import type { RedisClient } from '../backend/redis/connection';
import { OXMQ_VERSION } from '../version';
import { SCRIPTS } from './registry.generated';
import type { ScriptDefinition } from './script-definition';
import type { ScriptName } from './script-keys';

/**
 * Every Lua command, from the module generated out of lua/ (`npm run scripts:generate`): the
 * scripts travel inside the engine's JavaScript, nothing is read from disk.
 */
export const ALL_SCRIPTS: readonly ScriptDefinition<ScriptName>[] = Object.values(SCRIPTS);

/** Version-suffixed command name, so two OxMQ versions can share one Redis. */
export function commandName(script: ScriptName): string {
  return `${script}:oxmq-${OXMQ_VERSION}`;
}

const registered = new WeakSet<object>();

/**
 * Registers every script on a client as an ioredis custom command. ioredis sends EVALSHA and
 * falls back to EVAL (which also loads the script) when Redis answers NOSCRIPT.
 */
export function registerScripts(client: RedisClient): void {
  if (registered.has(client)) return;
  for (const script of ALL_SCRIPTS) {
    client.defineCommand(commandName(script.name), {
      numberOfKeys: script.numberOfKeys,
      lua: script.lua,
    });
  }
  registered.add(client);
}
