import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from './connection';
import { ALL_SCRIPTS, commandName, registerScripts } from '../../scripts/loader';
import { refusingOutOfMemory, typedOutOfMemory } from './out-of-memory';
import type { ScriptKeys, ScriptName } from '../../scripts/script-keys';

type ScriptArg = string | number | Buffer;
type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

/**
 * Runs one of our Lua commands (EVALSHA with NOSCRIPT fallback, via ioredis). `keys` has exactly
 * the script's key count (engine/scripts/script-keys.ts builds it by name from a QueueKeys).
 * Redis at maxmemory refuses it with RedisOutOfMemoryError (engine/backend/redis/out-of-memory.ts).
 */
export function runScript<Name extends ScriptName>(
  client: RedisClient,
  script: Name,
  keys: NoInfer<ScriptKeys<Name>>,
  args: readonly ScriptArg[],
): Promise<unknown> {
  registerScripts(client);
  // defineCommand adds the command as a method named after it; ioredis' types cannot know it.
  const command = (client as unknown as Record<string, ScriptCommand>)[commandName(script)];
  if (!command) throw new Error(`OxMQ script not loaded: ${script}`);
  return refusingOutOfMemory(command.call(client, ...keys, ...args));
}

const loadedOn = new WeakMap<RedisClient, Promise<void>>();
const watchedForReconnect = new WeakSet<RedisClient>();

/**
 * Makes sure Redis has every script cached. Single calls need no help (ioredis falls back to
 * EVAL on NOSCRIPT), but inside MULTI an EVALSHA of an unknown script just fails. Redone after
 * every (re)connect, since a restarted Redis has lost its script cache.
 */
function ensureScriptsLoaded(client: RedisClient): Promise<void> {
  let loading = loadedOn.get(client);
  if (!loading) {
    if (!watchedForReconnect.has(client)) {
      watchedForReconnect.add(client);
      client.on('ready', () => loadedOn.delete(client));
    }
    // A Cluster's masters each keep their own script cache (a replica promoted by a failover
    // may lack some: its NOSCRIPT makes execTransaction load them again, on the new masters).
    const servers = isCluster(client) ? client.nodes('master') : [client];
    loading = Promise.all(
      servers.map((server) => {
        const pipeline = server.pipeline();
        for (const script of ALL_SCRIPTS) pipeline.script('LOAD', script.lua);
        return pipeline.exec();
      }),
    ).then(() => undefined);
    loading.catch(() => loadedOn.delete(client));
    loadedOn.set(client, loading);
  }
  return loading;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.includes('NOSCRIPT');
}

/**
 * Runs a MULTI built by `build` (which queues commands with queueScript) in one round trip and
 * returns its replies. If the script cache was flushed meanwhile, no EVALSHA of the
 * transaction ran (NOSCRIPT), so it is safe to reload the scripts and run it once more.
 */
export async function execTransaction(
  client: RedisClient,
  build: (transaction: ChainableCommander) => void,
): Promise<[Error | null, unknown][]> {
  registerScripts(client);
  for (let attempt = 0; ; attempt++) {
    await ensureScriptsLoaded(client);
    const transaction = client.multi();
    build(transaction);
    const replies = (await refusingOutOfMemory(transaction.exec())) ?? [];
    if (attempt === 0 && replies.some(([error]) => isNoScript(error))) {
      loadedOn.delete(client);
      continue;
    }
    // A script refused inside EXEC (memory filled between queueing and EXEC) comes back typed too.
    return replies.map(([error, reply]) => [error && (typedOutOfMemory(error) as Error), reply]);
  }
}

/**
 * Runs one of our Lua commands, then WAIT on the same connection (one pipeline, so on a Cluster
 * both reach the master of the script's keys): resolves with the script's reply and the number
 * of replicas that acknowledged the connection's writes within `timeoutMs`. WAIT makes a write
 * survive the failover of its master only as far as those replicas can be promoted; it does not
 * roll the write back on timeout (docs/scaling.md).
 */
export async function runScriptThenWait<Name extends ScriptName>(
  client: RedisClient,
  script: Name,
  keys: NoInfer<ScriptKeys<Name>>,
  args: readonly ScriptArg[],
  durable: { replicas: number; timeoutMs: number },
): Promise<[reply: unknown, confirmed: number]> {
  registerScripts(client);
  for (let attempt = 1; ; attempt++) {
    const pipeline = client.pipeline();
    queueScript(pipeline, script, keys, args);
    pipeline.wait(durable.replicas, durable.timeoutMs);
    const [[scriptError, reply] = [null, undefined], [waitError, confirmed] = [null, 0]] =
      (await pipeline.exec()) ?? [];
    // After a Cluster failover the pipeline still goes to the old master, which answers MOVED
    // without running the script; ioredis follows a redirect only for a pipeline whose every
    // command failed alike, so refresh its slot table and send the pipeline again.
    if (scriptError && isCluster(client) && isRedirect(scriptError) && attempt < MAX_REDIRECTS) {
      await new Promise<void>((resolve) => client.refreshSlotsCache(() => resolve()));
      continue;
    }
    if (scriptError) throw typedOutOfMemory(scriptError);
    if (waitError) throw waitError;
    return [reply, Number(confirmed)];
  }
}

/** Redirects a pipeline may meet during a Cluster failover or slot migration. */
const MAX_REDIRECTS = 5;

function isRedirect(error: Error): boolean {
  return /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /.test(error.message);
}

/** Queues one of our Lua commands on a MULTI given by execTransaction. */
export function queueScript<Name extends ScriptName>(
  pipeline: ChainableCommander,
  script: Name,
  keys: NoInfer<ScriptKeys<Name>>,
  args: readonly ScriptArg[],
): void {
  const command = (pipeline as unknown as Record<string, (...a: ScriptArg[]) => unknown>)[
    commandName(script)
  ];
  if (!command) throw new Error(`OxMQ script not loaded: ${script}`);
  command.call(pipeline, ...keys, ...args);
}

/** Redis field lists come back flat: [k1, v1, k2, v2]. */
export function flatToRecord(flat: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  if (!Array.isArray(flat)) return record;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    record[String(flat[i])] = String(flat[i + 1]);
  }
  return record;
}

export function recordToFlat(record: Record<string, string> | undefined): string {
  if (!record) return '[]';
  return JSON.stringify(Object.entries(record).flat());
}
