/**
 * A Worker's completions that arrive in the same turn of the event loop (a worker with high
 * concurrency finishes many jobs at once) go to Redis together: one moveToFinishedBatch call
 * completes up to completionBatchLimit of them, each exactly as moveToFinished would, and takes
 * one next job for each completion that wants one. A lone completion keeps the one-job script.
 * Redis state and events are the same either way; what is shared is the script call, its key
 * list and its round trip.
 */
import type { FetchIdentity, FetchResult, KeepRule, QueueBackend } from '../backend/queue-backend';
import { OxmqError } from '../errors';

export interface Completion {
  jobId: string;
  /** The lock token the job was fetched with. */
  token: string;
  /** The return value as JSON. */
  value: string;
  keep: KeepRule;
  attempts: number;
  /** The identity to fetch the next job with (its token), or undefined for no next job. */
  fetchNext?: FetchIdentity;
}

/** The job's outcome: an error when Redis refused to complete it, and the next job if any. */
export interface CompletionResult {
  error?: Error;
  next?: FetchResult & { token?: string };
}

/** A completion with its promise's callbacks: one fixed-shape record per job, no copy. */
interface Pending {
  completion: Completion;
  resolve: (result: CompletionResult) => void;
  reject: (error: unknown) => void;
}

/** Most completions in one call. */
const MAX_BATCH = 100;
/**
 * A worker's slots are served by about this many calls at once, each of at most
 * concurrency / CALLS_IN_FLIGHT completions (at least MIN_BATCH). One call for all slots would
 * leave Redis idle while this process handles its reply, and this process idle while Redis runs
 * it; with a few in flight, Redis runs one while the reply of another is handled (measured at
 * concurrency 100: ~15k jobs/s as one call of 100, ~17-21k as calls of 34, the same Redis time
 * per job). The size holds steady: the next jobs a call of 34 fetched finish together and
 * form the next call of 34.
 */
const CALLS_IN_FLIGHT = 3;
const MIN_BATCH = 10;

/** The most completions one call carries for a worker of this concurrency. */
export function completionBatchLimit(concurrency: number): number {
  return Math.min(MAX_BATCH, Math.max(MIN_BATCH, Math.ceil(concurrency / CALLS_IN_FLIGHT)));
}

export class CompletionBatcher {
  private pending: Pending[] = [];
  private scheduled = false;
  /** False for a worker of concurrency 1: nothing could join, so no turn is waited for. */
  private readonly coalesce: boolean;
  private readonly limit: number;

  constructor(
    private readonly backend: QueueBackend,
    private readonly metricsMaxDataPoints: () => number | undefined,
    concurrency: number,
  ) {
    this.coalesce = concurrency > 1;
    this.limit = completionBatchLimit(concurrency);
  }

  complete(completion: Completion): Promise<CompletionResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ completion, resolve, reject });
      if (!this.coalesce || this.pending.length >= this.limit) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends what waits for the next turn now (closing: no turn is left to wait for). */
  flushNow(): void {
    this.flush();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const sent = batch.length === 1 ? this.sendOne(batch[0]!) : this.sendMany(batch);
    sent.catch((error: unknown) => {
      for (const entry of batch) entry.reject(error);
    });
  }

  private async sendOne(entry: Pending): Promise<void> {
    const { completion } = entry;
    try {
      const next = await this.backend.finishJob({
        jobId: completion.jobId,
        token: completion.token,
        outcome: 'completed',
        value: completion.value,
        keep: completion.keep,
        attempts: completion.attempts,
        fetchNext: completion.fetchNext,
        metricsMaxDataPoints: this.metricsMaxDataPoints(),
      });
      entry.resolve({ next: next && { ...next, token: completion.fetchNext?.token } });
    } catch (error) {
      // A script's refusal (a typed error) belongs to this job alone.
      if (error instanceof OxmqError) entry.resolve({ error });
      else throw error;
    }
  }

  private async sendMany(batch: Pending[]): Promise<void> {
    let wanting = 0;
    let identity: FetchIdentity | undefined;
    for (const { completion } of batch) {
      if (!completion.fetchNext) continue;
      wanting += 1;
      identity ??= completion.fetchNext;
    }
    const { errors, next } = await this.backend.completeJobBatch({
      // Each job with its own token; the batch token is only a fallback the script never needs.
      token: batch[0]!.completion.token,
      // A Completion carries every field a batch entry needs (jobId, value, keep, token).
      jobs: batch.map((entry) => entry.completion),
      metricsMaxDataPoints: this.metricsMaxDataPoints(),
      fetchNext: identity && { identity, batchSize: wanting, maxBatchBytes: 0 },
    });
    // The next jobs share the token of the first identity: hand one to each completion that
    // wanted one, in order; a "none" (rate limited, empty) goes to all of them.
    const jobs = next?.kind === 'batch' ? next.jobs : [];
    let handedOut = 0;
    for (const [index, entry] of batch.entries()) {
      const error = errors[index];
      let given: CompletionResult['next'];
      if (entry.completion.fetchNext && next) {
        if (next.kind === 'none') given = next;
        else {
          const job = jobs[handedOut++];
          if (job)
            given = { kind: 'job', jobId: job.jobId, hash: job.hash, token: identity!.token };
        }
      }
      entry.resolve({ error, next: given });
    }
  }
}
