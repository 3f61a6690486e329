/**
 * Reads that must see one moment, without a MULTI: Redis at maxmemory (noeviction) refuses every
 * command queued in a MULTI, reads too, so a MULTI of reads fails exactly when an operator needs
 * to look at a full queue. lua/readTogether-1.lua runs the same reads in one script call, which
 * Redis runs at maxmemory because it never writes (docs/reliability.md, "Redis at maxmemory").
 * Reads that need no common moment go in a plain pipeline instead.
 */
import type { RedisClient } from './connection';
import { UnexpectedReplyError } from '../../errors';
import { runScript } from './run-script';

/** The commands lua/readTogether-1.lua runs (it refuses any other). */
type ReadCommandName =
  | 'exists'
  | 'get'
  | 'pttl'
  | 'ttl'
  | 'type'
  | 'hget'
  | 'hmget'
  | 'hgetall'
  | 'hexists'
  | 'hlen'
  | 'hscan'
  | 'llen'
  | 'lrange'
  | 'lindex'
  | 'lpos'
  | 'scard'
  | 'smembers'
  | 'sismember'
  | 'sscan'
  | 'zcard'
  | 'zcount'
  | 'zrange'
  | 'zrevrange'
  | 'zscore';

export type ReadCommand = [name: ReadCommandName, ...args: (string | number)[]];

/**
 * Runs `commands` as one atomic read and answers as a MULTI's exec does: one [error, reply] per
 * command. Replies come from Lua, so HGETALL gives a flat field/value array (flatToRecord in
 * engine/backend/redis/run-script.ts makes it a record), and a missing value is null. `route` is
 * a key in the slot of every key read (the queue's base for a queue's keys), for Redis Cluster.
 */
export async function readAtomically(
  client: RedisClient,
  route: string,
  commands: readonly ReadCommand[],
): Promise<[Error | null, unknown][]> {
  if (commands.length === 0) return [];
  const args: (string | number)[] = [];
  for (const [name, ...rest] of commands) args.push(rest.length, name, ...rest);
  const replies = await runScript(client, 'readTogether', [route], args);
  if (!Array.isArray(replies) || replies.length !== commands.length) {
    throw new UnexpectedReplyError(`readTogether replied ${String(replies)}`);
  }
  return replies.map((reply: unknown) =>
    reply instanceof Error ? [reply, null] : [null, reply ?? null],
  );
}

/** The replies of readAtomically, throwing the first command's error. */
export async function readAllAtomically(
  client: RedisClient,
  route: string,
  commands: readonly ReadCommand[],
): Promise<unknown[]> {
  return (await readAtomically(client, route, commands)).map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
