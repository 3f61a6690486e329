/**
 * The Redis storage's StorageConnection: the ioredis connections one class opened from its
 * `connection` option. A Worker gets two, its commands' and a blocking one of its own for the
 * waits for work (named so that CLIENT LIST finds it, as bullmq's); a QueueEvents one blocking
 * connection for its reads; the others one connection. Cluster-safety of a queue's keys is
 * checked here, before anything is opened.
 */
import { ValidationError } from '../../errors';
import { QueueKeys } from '../../queue/keys';
import { workerConnectionName } from '../../worker/worker-connections';
import type { ConnectRequest, StorageConnection, StorageRole } from '../storage';
import { assertClusterSafeQueue } from './cluster-slots';
import {
  connect,
  drop,
  release,
  untilConnectAttemptEnds,
  untilDisconnected,
  type ConnectionOptions,
  type ManagedConnection,
  type RedisClient,
  waitForReady,
} from './connection';

/** The class each role belongs to, as the errors name it. */
const LABEL: Record<StorageRole, string> = {
  queue: 'Queue',
  worker: 'Worker',
  flows: 'FlowProducer',
  events: 'QueueEvents',
  producer: 'QueueEventsProducer',
};

export class RedisConnection implements StorageConnection {
  private constructor(
    private readonly role: StorageRole,
    /** Commands (for QueueEvents: its blocking reads). */
    private readonly main: ManagedConnection,
    /** A Worker's waits for work. */
    private readonly waits?: ManagedConnection,
  ) {}

  static open(request: ConnectRequest): RedisConnection {
    const { role, queue } = request;
    if (request.connection === undefined) {
      throw new ValidationError(`${LABEL[role]} needs a connection option`);
    }
    const connection = request.connection as ConnectionOptions;
    if (queue) assertClusterSafeQueue(connection, new QueueKeys(queue.prefix, queue.name));
    if (role === 'worker') {
      return new RedisConnection(
        role,
        connect(connection, { retryForever: true }),
        connect(connection, {
          blocking: true,
          connectionName: workerConnectionName(queue!.prefix, queue!.name, request.workerName),
        }),
      );
    }
    if (role === 'events') {
      // The name bullmq's queue.getQueueEvents() looks for (docs/redis-keys.md); ioredis sets
      // it on every (re)connect, so it survives a Redis restart.
      const connectionName = `${queue!.prefix}:${Buffer.from(queue!.name).toString('base64')}:qe`;
      return new RedisConnection(role, connect(connection, { blocking: true, connectionName }));
    }
    return new RedisConnection(role, connect(connection));
  }

  /** The connection for commands (a QueueEvents' blocking reads). */
  get client(): RedisClient {
    return this.main.client;
  }

  /** A Worker's connection for its waits for work. */
  get blockingClient(): RedisClient | undefined {
    return this.waits?.client;
  }

  async ready(): Promise<void> {
    if (this.role === 'worker' || this.role === 'events') {
      await Promise.all([
        waitForReady(this.main.client),
        this.waits && waitForReady(this.waits.client),
      ]);
      return;
    }
    // Producers and flows ask Redis: a ping fails when it cannot be reached, as bullmq's.
    await this.main.client.ping();
  }

  settled(): Promise<void> {
    return untilConnectAttemptEnds(this.main.client);
  }

  lost(): Promise<void> {
    return untilDisconnected(this.main.client);
  }

  onError(listener: (error: Error) => void): void {
    this.main.client.on('error', listener);
    this.waits?.client.on('error', listener);
  }

  async close(): Promise<void> {
    if (this.role === 'events') return this.dropReader();
    // The blocking connection may still sit in BZPOPMIN: drop it rather than QUIT behind it.
    this.waits?.client.disconnect();
    await release(this.main);
  }

  async disconnect(): Promise<void> {
    if (this.role === 'events') return this.dropReader();
    this.waits?.client.disconnect();
    await drop(this.main);
  }

  /**
   * A reader's connection is always its own and may sit in a blocking XREAD: it is dropped (a
   * QUIT would queue behind the read), and the drop is awaited while a socket exists.
   */
  private async dropReader(): Promise<void> {
    const { client } = this.main;
    // While ioredis waits to reconnect there is no socket to close: disconnect() cancels the
    // retry and no 'end' event follows, so only wait for one when a socket exists.
    const waitForEnd = client.status !== 'end' && client.status !== 'reconnecting';
    const ended = waitForEnd ? new Promise((resolve) => client.once('end', resolve)) : undefined;
    if (client.status !== 'end') client.disconnect();
    await ended;
  }
}

/** The Redis connection behind a StorageConnection; refuses one another storage made. */
export function redisConnectionOf(connection: StorageConnection): RedisConnection {
  if (connection instanceof RedisConnection) return connection;
  throw new ValidationError('the Redis storage was handed a connection of another storage');
}
