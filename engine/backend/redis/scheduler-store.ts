/**
 * Redis side of job schedulers: our four scripts (lua/addJobScheduler-12, updateJobScheduler-12,
 * removeJobScheduler-6, pauseJobScheduler-6) and the plain reads of `Q repeat` (zset: id → next run) and
 * `Q repeat:<id>` (hash: the definition, docs/redis-keys.md).
 */
import type { RedisClient } from './connection';
import { UnexpectedReplyError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import {
  JobSchedulerIdCollisionError,
  JobSchedulerNotFoundError,
  JobSchedulerPausedStateError,
  JobSchedulerSlotsBusyError,
  type NextIterationOutcome,
  type NextIterationRequest,
  type SchedulerStorage,
  type StoredScheduler,
  type UpsertRequest,
} from '../scheduler-storage';
import { readAtomically } from './atomic-reads';
import { flatToRecord, runScript } from './run-script';

export class RedisSchedulerStorage implements SchedulerStorage {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: QueueKeys,
  ) {}

  private schedulerKey(id: string): string {
    return `${this.keys.repeat}:${id}`;
  }

  async upsert(request: UpsertRequest, now: number): Promise<{ jobId: string; delay: number }> {
    const reply = await runScript(
      this.client,
      'addJobScheduler',
      scriptKeys('addJobScheduler', this.keys),
      [JSON.stringify({ base: this.keys.base, ...request }), now],
    );
    if (reply === -10) {
      throw new JobSchedulerIdCollisionError(
        `Cannot create job scheduler iteration - job ID already exists (scheduler ${request.id})`,
      );
    }
    if (reply === -11) {
      throw new JobSchedulerSlotsBusyError(
        `Cannot create job scheduler iteration - current and next time slots already have jobs (scheduler ${request.id})`,
      );
    }
    if (reply === -12) {
      throw new JobSchedulerNotFoundError(`No job scheduler ${request.id}`);
    }
    if (reply === -13) {
      throw new JobSchedulerPausedStateError(
        request.require === 'paused'
          ? `Job scheduler ${request.id} is not paused`
          : `Job scheduler ${request.id} is paused: resume it first`,
      );
    }
    if (!Array.isArray(reply) || reply.length < 2) {
      throw new UnexpectedReplyError(`addJobScheduler replied ${JSON.stringify(reply)}`);
    }
    return { jobId: String(reply[0]), delay: Number(reply[1]) };
  }

  async nextIteration(request: NextIterationRequest, now: number): Promise<NextIterationOutcome> {
    const reply = await runScript(
      this.client,
      'updateJobScheduler',
      scriptKeys('updateJobScheduler', this.keys),
      [JSON.stringify({ base: this.keys.base, ...request }), now],
    );
    if (typeof reply === 'string') return { created: true, jobId: reply };
    if (reply === 0) return { created: false, reason: 'gone' };
    if (reply === 1) return { created: false, reason: 'not-current' };
    if (reply === 2) return { created: false, reason: 'taken' };
    if (reply === 3) return { created: false, reason: 'ended' };
    if (reply === 4) return { created: false, reason: 'paused' };
    throw new UnexpectedReplyError(`updateJobScheduler replied ${JSON.stringify(reply)}`);
  }

  async remove(id: string): Promise<boolean> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'removeJobScheduler',
      scriptKeys('removeJobScheduler', k),
      [id, k.base],
    );
    return reply === 1;
  }

  /**
   * Takes the pending iteration out and marks the scheduler paused (lua/pauseJobScheduler-6).
   * 'missing' when there is no such scheduler.
   */
  async pause(id: string, now: number): Promise<'paused' | 'already-paused' | 'missing'> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'pauseJobScheduler',
      scriptKeys('pauseJobScheduler', k),
      [id, k.base, now],
    );
    if (reply === 0) return 'missing';
    if (reply === 1) return 'paused';
    if (reply === 2) return 'already-paused';
    throw new UnexpectedReplyError(`pauseJobScheduler replied ${JSON.stringify(reply)}`);
  }

  /** The scheduler's hash and next run, read atomically; undefined unless both exist. */
  async get(id: string): Promise<StoredScheduler | undefined> {
    // One atomic read that Redis also runs at maxmemory (engine/backend/redis/atomic-reads.ts).
    const replies = await readAtomically(this.client, this.keys.base, [
      ['zscore', this.keys.repeat, id],
      ['hgetall', this.schedulerKey(id)],
    ]);
    const [[scoreError, score] = [null, null], [hashError, hash] = [null, []]] = replies;
    if (scoreError) throw scoreError;
    if (hashError) throw hashError;
    const record = flatToRecord(hash);
    if (score === null || Object.keys(record).length === 0) return undefined;
    return { hash: record, next: Number(score) };
  }

  /** Schedulers by next run; pairs of [id, hash] with the score, skipping ids without a hash. */
  async range(
    start: number,
    end: number,
    asc: boolean,
  ): Promise<(StoredScheduler & { id: string })[]> {
    const flat = asc
      ? await this.client.zrange(this.keys.repeat, start, end, 'WITHSCORES')
      : await this.client.zrevrange(this.keys.repeat, start, end, 'WITHSCORES');
    const entries: { id: string; next: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      entries.push({ id: flat[i]!, next: Number(flat[i + 1]) });
    }
    if (entries.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const entry of entries) pipeline.hgetall(this.schedulerKey(entry.id));
    const replies = (await pipeline.exec()) ?? [];
    const found: (StoredScheduler & { id: string })[] = [];
    entries.forEach((entry, i) => {
      const [error, hash] = replies[i] ?? [null, {}];
      if (error) throw error;
      const record = flatToRecordIfArray(hash);
      if (Object.keys(record).length > 0) found.push({ ...entry, hash: record });
    });
    return found;
  }

  count(): Promise<number> {
    return this.client.zcard(this.keys.repeat);
  }

  /** True when `Q repeat:<id>` is a v6 scheduler (has `ic`), not a legacy v5 repeatable. */
  async isScheduler(id: string): Promise<boolean> {
    return (await this.client.hexists(this.schedulerKey(id), 'ic')) === 1;
  }

  /** The stored definition, for iterations whose opts lack `repeat`. */
  async definition(id: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.schedulerKey(id));
  }
}

function flatToRecordIfArray(reply: unknown): Record<string, string> {
  if (Array.isArray(reply)) return flatToRecord(reply);
  return (reply ?? {}) as Record<string, string>;
}
