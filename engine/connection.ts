import { Redis, type RedisOptions } from 'ioredis';
import { ValidationError } from './errors';

/**
 * How to reach Redis: ioredis options (with bullmq's `url` field: the URL is parsed by ioredis
 * and the other fields apply on top), a redis:// URL, or an ioredis instance to share.
 */
export type ConnectionOptions = (RedisOptions & { url?: string }) | string | Redis;

export interface ConnectOptions {
  /** Blocking connections (BZPOPMIN, XREAD BLOCK) must never give up on a command. */
  blocking?: boolean;
  /** Workers' commands must survive reconnects too; producers may prefer to fail fast. */
  retryForever?: boolean;
  connectionName?: string;
}

export interface ManagedConnection {
  client: Redis;
  /** False when the caller passed an instance: we never quit what we did not open. */
  owned: boolean;
}

export function connect(
  connection: ConnectionOptions,
  opts: ConnectOptions = {},
): ManagedConnection {
  const overrides: RedisOptions = {};
  if (opts.blocking || opts.retryForever) overrides.maxRetriesPerRequest = null;
  if (opts.connectionName) overrides.connectionName = opts.connectionName;

  if (connection instanceof Redis) {
    rejectKeyPrefix(connection.options);
    // A blocking command would stall every other user of a shared instance: use a duplicate.
    if (opts.blocking || opts.connectionName) {
      return { client: connection.duplicate(overrides), owned: true };
    }
    return { client: watchMemoryPolicy(connection), owned: false };
  }
  // The policy check runs on non-blocking connections only: on a blocking one it would queue
  // behind BZPOPMIN.
  const watch = (client: Redis) => (opts.blocking ? client : watchMemoryPolicy(client));
  if (typeof connection === 'string') {
    return { client: watch(new Redis(connection, overrides)), owned: true };
  }
  if (connection === null || typeof connection !== 'object') {
    throw new ValidationError(
      'connection must be ioredis options, a redis:// URL or an ioredis instance',
    );
  }
  rejectKeyPrefix(connection);
  const { url, ...options } = connection as RedisOptions & { url?: unknown };
  if (url !== undefined) {
    if (typeof url !== 'string') throw new ValidationError('connection.url must be a string');
    return { client: watch(new Redis(url, { ...options, ...overrides })), owned: true };
  }
  return { client: watch(new Redis({ ...connection, ...overrides })), owned: true };
}

function rejectKeyPrefix(options: RedisOptions): void {
  if (options.keyPrefix) {
    // Scripts build keys from the queue prefix; an ioredis keyPrefix would only apply to KEYS.
    throw new ValidationError('ioredis keyPrefix is not supported: use the prefix option instead');
  }
}

const warnedServers = new Set<string>();
const watched = new WeakSet<Redis>();

/**
 * Jobs are data, not cache: under any eviction policy other than noeviction Redis may silently
 * drop job hashes. Warn once per server when that is configured.
 */
function watchMemoryPolicy(client: Redis): Redis {
  if (watched.has(client)) return client;
  watched.add(client);
  const check = () => {
    const server = `${client.options.host ?? ''}:${client.options.port ?? ''}`;
    if (warnedServers.has(server)) return;
    readMemoryPolicy(client)
      .then((policy) => {
        if (policy && policy !== 'noeviction' && !warnedServers.has(server)) {
          warnedServers.add(server);
          console.warn(
            `OxMQ: Redis at ${server} has maxmemory-policy "${policy}"; use "noeviction" or jobs may be lost`,
          );
        }
      })
      .catch(() => undefined);
  };
  if (client.status === 'ready') check();
  client.on('ready', check);
  return client;
}

async function readMemoryPolicy(client: Redis): Promise<string | undefined> {
  const info = await client.info('memory');
  const match = /maxmemory_policy:(\S+)/.exec(info);
  return match?.[1];
}

/**
 * Closes a connection we own; leaves a shared one alone. QUIT when connected (lets pending
 * replies arrive), but never wait on a socket that has just died: with retries on, ioredis
 * would hold the QUIT for a reconnect that may never come.
 */
export async function release(connection: ManagedConnection): Promise<void> {
  if (!connection.owned) return;
  const { client } = connection;
  if (client.status === 'ready') {
    await Promise.race([client.quit().catch(() => undefined), untilDisconnected(client)]);
  }
  if (client.status !== 'end') client.disconnect();
}

/** Drops a connection we own at once, without waiting for pending replies (disconnect()). */
export async function drop(connection: ManagedConnection): Promise<void> {
  if (connection.owned) connection.client.disconnect();
}

/**
 * Resolves as soon as `client` is not connected (at once if it is not now). Closing paths race
 * their graceful waits against it: while Redis is down, pending commands never finish, and a
 * close() must still return.
 */
export function untilDisconnected(client: Redis): Promise<void> {
  if (client.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      client.off('close', done);
      client.off('end', done);
      resolve();
    };
    client.once('close', done);
    client.once('end', done);
  });
}
