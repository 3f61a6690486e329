import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { ClosedError, ValidationError } from '../../errors';
import { maskRedisUrl } from './url-mask';

/** A connection the engine can use: one Redis server (also through Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * How to reach Redis: ioredis options (with bullmq's `url` field: the URL is parsed by ioredis
 * and the other fields apply on top; `sentinels` + `name` for Sentinel), a redis:// URL, or an
 * ioredis instance to share: a `Redis` or a `Cluster`.
 */
export type ConnectionOptions = (RedisOptions & { url?: string }) | string | RedisClient;

export interface ConnectOptions {
  /** Blocking connections (BZPOPMIN, XREAD BLOCK) must never give up on a command. */
  blocking?: boolean;
  /** Workers' commands must survive reconnects too; producers may prefer to fail fast. */
  retryForever?: boolean;
  connectionName?: string;
}

export interface ManagedConnection {
  client: RedisClient;
  /** False when the caller passed an instance: we never quit what we did not open. */
  owned: boolean;
}

/**
 * Defaults for the connections OxMQ opens from options (a caller's own options win). After a
 * failover, a connection still talking to the demoted master gets READONLY for every write:
 * reconnect (through the sentinels, to the new master) and send the command again.
 */
const OPTION_DEFAULTS: RedisOptions = {
  reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
};

const CONNECTION_KINDS =
  'ioredis options (a plain object), a redis:// or rediss:// URL, or an ioredis Redis or Cluster instance';

export function connect(
  connection: ConnectionOptions,
  opts: ConnectOptions = {},
): ManagedConnection {
  const overrides: RedisOptions = {};
  if (opts.blocking || opts.retryForever) overrides.maxRetriesPerRequest = null;
  // A blocking read abandoned by a watchdog (its connection reset) must not be re-sent when the
  // connection comes back: the reader has moved on.
  if (opts.blocking) overrides.autoResendUnfulfilledCommands = false;
  if (opts.connectionName) overrides.connectionName = opts.connectionName;

  if (isRedisClient(connection)) {
    rejectKeyPrefix(connection);
    // A blocking command would stall every other user of a shared instance: use a duplicate.
    if (opts.blocking || opts.connectionName) {
      return { client: duplicate(connection, overrides), owned: true };
    }
    return { client: watchMemoryPolicy(connection), owned: false };
  }
  // The policy check runs on non-blocking connections only: on a blocking one it would queue
  // behind BZPOPMIN.
  const watch = (client: Redis) => (opts.blocking ? client : watchMemoryPolicy(client));
  if (typeof connection === 'string') {
    if (!/^rediss?:\/\//.test(connection)) {
      throw new ValidationError(
        `connection must be ${CONNECTION_KINDS}; got the string "${maskRedisUrl(connection)}"`,
      );
    }
    return {
      client: watch(new Redis(connection, { ...OPTION_DEFAULTS, ...overrides })),
      owned: true,
    };
  }
  checkPlainOptions(connection);
  rejectKeyPrefixOption(connection.keyPrefix);
  const { url, ...options } = connection as RedisOptions & { url?: unknown };
  const settings = { ...OPTION_DEFAULTS, ...options, ...overrides };
  if (url !== undefined) {
    if (typeof url !== 'string') throw new ValidationError('connection.url must be a string');
    return { client: watch(new Redis(url, settings)), owned: true };
  }
  return { client: watch(new Redis(settings)), owned: true };
}

/**
 * An ioredis client, including one from another copy of ioredis (a service may bundle its own
 * version), where `instanceof` fails: it has the methods the engine calls on a client.
 */
export function isRedisClient(value: unknown): value is RedisClient {
  if (value instanceof Redis || value instanceof Cluster) return true;
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.duplicate === 'function' &&
    typeof candidate.sendCommand === 'function' &&
    typeof candidate.pipeline === 'function' &&
    typeof candidate.status === 'string'
  );
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as { isCluster?: unknown }).isCluster === true;
}

function duplicate(client: RedisClient, overrides: RedisOptions): RedisClient {
  if (!isCluster(client)) return client.duplicate(overrides);
  // A Cluster applies redisOptions to the connection of every node it opens.
  const redisOptions = { ...client.options.redisOptions, ...overrides };
  return client.duplicate(undefined, { redisOptions } satisfies ClusterOptions);
}

/** Options must be a plain object whose connection fields have the types ioredis expects. */
function checkPlainOptions(
  connection: unknown,
): asserts connection is RedisOptions & { url?: string } {
  const prototype =
    connection !== null && typeof connection === 'object'
      ? Object.getPrototypeOf(connection)
      : undefined;
  if (prototype !== Object.prototype && prototype !== null) {
    throw new ValidationError(`connection must be ${CONNECTION_KINDS}`);
  }
  const fields = connection as Record<string, unknown>;
  const wrong = (field: string, expected: string) =>
    new ValidationError(`connection.${field} must be ${expected}`);
  if (fields.host !== undefined && typeof fields.host !== 'string') throw wrong('host', 'a string');
  if (fields.port !== undefined && !isPort(fields.port)) throw wrong('port', 'a port number');
  if (fields.path !== undefined && typeof fields.path !== 'string') throw wrong('path', 'a string');
  if (fields.sentinels !== undefined) {
    if (!Array.isArray(fields.sentinels) || fields.sentinels.length === 0) {
      throw wrong('sentinels', 'a non-empty array of { host, port }');
    }
    if (typeof fields.name !== 'string' || fields.name === '') {
      throw wrong('name', "the Sentinel master's name when sentinels are given");
    }
  }
}

function isPort(value: unknown): boolean {
  const port = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65_536;
}

function rejectKeyPrefix(client: RedisClient): void {
  if (isCluster(client)) {
    rejectKeyPrefixOption(client.options.keyPrefix ?? client.options.redisOptions?.keyPrefix);
  } else {
    rejectKeyPrefixOption(client.options.keyPrefix);
  }
}

function rejectKeyPrefixOption(keyPrefix: unknown): void {
  if (keyPrefix) {
    // Scripts build keys from the queue prefix; an ioredis keyPrefix would only apply to KEYS.
    throw new ValidationError('ioredis keyPrefix is not supported: use the prefix option instead');
  }
}

const warnedServers = new Set<string>();
const watched = new WeakSet<RedisClient>();

/**
 * Jobs are data, not cache: under any eviction policy other than noeviction Redis may silently
 * drop job hashes. Warn once per server when that is configured.
 */
function watchMemoryPolicy<C extends RedisClient>(client: C): C {
  if (watched.has(client)) return client;
  watched.add(client);
  const check = () => {
    const server = serverLabel(client);
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

function serverLabel(client: RedisClient): string {
  if (isCluster(client)) {
    const nodes = client.nodes('master').map((node) => `${node.options.host}:${node.options.port}`);
    return `cluster ${nodes.join(',')}`;
  }
  return `${client.options.host ?? ''}:${client.options.port ?? ''}`;
}

async function readMemoryPolicy(client: RedisClient): Promise<string | undefined> {
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
 * Like untilDisconnected, but a client still making its first connection is waited for until
 * that attempt ends (ready, or closed because Redis cannot be reached): a Queue closed right
 * after it was created must not drop what it was asked to write meanwhile.
 */
export function untilConnectAttemptEnds(client: RedisClient): Promise<void> {
  if (client.status !== 'connecting' && client.status !== 'connect') {
    return untilDisconnected(client);
  }
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['ready', 'close', 'end']) client.off(event, done);
      resolve();
    };
    for (const event of ['ready', 'close', 'end']) client.once(event, done);
  });
}

/**
 * Resolves as soon as `client` is not connected (at once if it is not now). Closing paths race
 * their graceful waits against it: while Redis is down, pending commands never finish, and a
 * close() must still return.
 */
export function untilDisconnected(client: RedisClient): Promise<void> {
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

/** Resolves once the client is ready; rejects if it ends first. */
export function waitForReady(client: RedisClient): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      client.off('end', onEnd);
      resolve();
    };
    const onEnd = () => {
      client.off('ready', onReady);
      reject(new ClosedError('Connection closed before it was ready'));
    };
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}
