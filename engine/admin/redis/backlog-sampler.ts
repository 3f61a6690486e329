/**
 * The backlog history (docs/metrics.md, "Timing history"): every interval (a minute by default),
 * the count of jobs per state of every queue of a prefix, grouped jobs included, written beside
 * the queue's timing history. Consoles and runners each start one; a lease per prefix
 * (lease.ts) lets exactly one of them sample each turn, so several processes neither write a
 * turn twice nor, as long as a dead holder's lease runs out within the turn, skip one.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { getCounts } from '../../backend/redis/queue-reads';
import type { JobState } from '../../backend/queue-operations';
import {
  DEFAULT_HISTORY_RETENTION,
  MINUTE_MS,
  SERIES,
  type HistoryRetention,
} from '../../history/history-keys';
import { writeHistory } from '../../backend/redis/history-store';
import { QueueKeys } from '../../queue/keys';
import { RedisLease } from './lease';
import { listQueues, QUEUE_COUNT_STATES } from './queues';
import type { QueueRef } from '../queue-ref';

export const BACKLOG_SAMPLER_LEASE = 'history-sampler';
const SAMPLES_AT_ONCE = 20;

export interface BacklogSamplerOptions {
  prefixes: readonly string[];
  /** Length of a turn (ms, default one minute): one sample per queue per turn. */
  intervalMs?: number;
  retention?: HistoryRetention;
  /** Most queues sampled per prefix and turn (default 1000; the scan budget of listQueues applies). */
  maxQueues?: number;
  /** This process's id in the lease (default: host, pid, random). */
  holder?: string;
  /** Called after a turn was sampled (for logs and tests). */
  onSampled?(sample: { prefix: string; turn: number; queues: number }): void;
  onError?(error: unknown): void;
}

export class BacklogSampler {
  private readonly intervalMs: number;
  private readonly leases: Map<string, RedisLease>;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;

  constructor(
    private readonly client: RedisClient,
    private readonly options: BacklogSamplerOptions,
  ) {
    this.intervalMs = options.intervalMs ?? MINUTE_MS;
    // The lease outlives a dead holder by a third of a turn, and the holder renews it ten times
    // a turn: a takeover comes well inside the turn, so no turn is skipped.
    const ttlMs = Math.max(1_000, Math.round(this.intervalMs / 3));
    this.leases = new Map(
      options.prefixes.map((prefix) => [
        prefix,
        new RedisLease(client, prefix, BACKLOG_SAMPLER_LEASE, {
          ttlMs,
          holder: options.holder,
          turnMemoryMs: Math.max(DEFAULT_HISTORY_RETENTION.minutesKeptMs, 10 * this.intervalMs),
        }),
      ]),
    );
  }

  private get tickMs(): number {
    return Math.max(100, Math.round(this.intervalMs / 10));
  }

  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.ticking = this.tick()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(loop, this.tickMs).unref();
        });
    };
    this.timer = setTimeout(loop, 0).unref();
  }

  /** Stops sampling and gives the leases up, so another process takes over at once. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.all([...this.leases.values()].map((lease) => lease.release())).catch(
      () => undefined,
    );
  }

  /** One look: for each prefix whose lease this process holds, samples the turn unless done. */
  async tick(now = Date.now()): Promise<void> {
    const turn = Math.floor(now / this.intervalMs);
    for (const [prefix, lease] of this.leases) {
      const { claimed } = await lease.claim(turn);
      if (!claimed) continue;
      const queues = await this.sample(prefix, turn * this.intervalMs);
      this.options.onSampled?.({ prefix, turn, queues });
    }
  }

  private async sample(prefix: string, at: number): Promise<number> {
    const { queues } = await listQueues(this.client, [prefix]);
    const sampled = queues.slice(0, this.options.maxQueues ?? 1_000);
    // A few queues at a time: a prefix with many queues must not flood Redis at each turn.
    for (let i = 0; i < sampled.length; i += SAMPLES_AT_ONCE) {
      await Promise.all(
        sampled.slice(i, i + SAMPLES_AT_ONCE).map((queue) => this.sampleQueue(queue, at)),
      );
    }
    return sampled.length;
  }

  private async sampleQueue(queue: QueueRef, at: number): Promise<void> {
    const keys = new QueueKeys(queue.prefix, queue.name);
    const counts = await getCounts(this.client, keys, [...QUEUE_COUNT_STATES] as JobState[]);
    const samples = Object.entries(counts).map(([state, value]) => ({
      at,
      series: SERIES.backlog,
      name: state,
      value,
    }));
    await writeHistory(
      this.client,
      keys,
      this.options.retention ?? DEFAULT_HISTORY_RETENTION,
      [],
      samples,
    );
  }
}
