import type { QueueBackend } from '../backend/queue-backend';
import { DEFAULTS } from '../defaults';
import { WAKE_MEMBER } from './heartbeat-keys';

/** The worker's wake channel and what a write to it means (a cancel request waits for it). */
export interface WakeChannel {
  /** The worker whose channel it is. */
  workerId: string;
  onWake(): void;
  /** True while the worker runs jobs: only then is a wait on the wake channel alone worth a call. */
  hasJobs(): boolean;
}

/**
 * How long the slot loop sleeps with its slots busy before the wake channel gets a wait of its
 * own: a job shorter than this costs no extra call, a longer one is reachable within it.
 */
const WATCH_AFTER_MS = 200;

type BlockOutcome = number | 'wake' | 'timeout' | 'interrupted' | 'lost';

/**
 * An idle worker's wait for work: waits on the storage's signal (QueueBackend.waitForMarker)
 * until jobs are signalled, the next delayed job is due, or the drain delay passes; pause and
 * close end a wait at once (its AbortSignal; the storage frees what the wait held, e.g. Redis's
 * blocking connection).
 *
 * With a wake channel the same wait also watches the worker's own channel, so a cancel request
 * reaches an idle worker at no extra cost. A worker whose slots are all busy does not wait for
 * work: then, once it has slept WATCH_AFTER_MS, it waits on the wake channel alone, and that
 * wait is ended when work is wanted again.
 */
export class MarkerWaiter {
  /** Ends the current wait at once. */
  private interruptBlock?: () => void;
  private wake?: WakeChannel;
  /** The wait on the wake channel alone, while one runs. */
  private watching?: Promise<void>;
  private watchWanted = false;
  private watchTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly backend: QueueBackend,
    private readonly drainDelaySeconds: number,
    /** True once the wait should end (worker paused or closing). */
    private readonly stopped: () => boolean,
    private readonly idleRecheckMs: number = DEFAULTS.worker.idleRecheckMs,
  ) {}

  /** Watches the worker's wake channel too (a worker with heartbeats; see heartbeat.ts). */
  useWake(channel: WakeChannel): void {
    this.wake = channel;
  }

  /**
   * Waits for work; `nextDelayedTs` (> 0) is when the earliest delayed job is due. A block that
   * times out with no marker and nothing due blocks again, so an idle worker sends one command
   * per drainDelay; it returns (for a fetch) only after `idleRecheckMs`, as a safety net. A
   * `held` queue (paused, or at its global concurrency) is polled every drainDelay instead:
   * bullmq's scripts free a concurrency slot without writing a marker. `idleRecheckMs` 0 returns
   * after one drainDelay without a marker (getNextJob's single blocking wait).
   */
  async wait(
    nextDelayedTs: number,
    held = false,
    idleRecheckMs = this.idleRecheckMs,
  ): Promise<void> {
    await this.endWatch();
    let blockUntil = nextDelayedTs;
    const recheckAt = Date.now() + (held ? 0 : idleRecheckMs);
    while (!this.stopped()) {
      const now = Date.now();
      if (blockUntil > 0 && blockUntil <= now) return;
      const seconds =
        blockUntil > 0
          ? Math.min((blockUntil - now) / 1000, DEFAULTS.worker.maxBlockSeconds)
          : this.drainDelaySeconds;
      const outcome = await this.blockOnce(Math.max(seconds, 0.001), false);
      if (outcome === 'wake') continue;
      if (outcome === 'interrupted' || outcome === 'lost') return;
      if (outcome === 'timeout') {
        if (Date.now() >= recheckAt) return;
        continue;
      }
      if (outcome <= 0 || outcome <= Date.now()) return;
      blockUntil = outcome;
    }
  }

  /** Ends a wait in progress now (pause, close). */
  interrupt(): void {
    this.interruptBlock?.();
  }

  /** Ends every wait for good (the worker closes). */
  close(): void {
    this.closed = true;
    this.watchWanted = false;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    this.interrupt();
  }

  /**
   * The slot loop sleeps with jobs running (slots full, paused, quiet, rate limited): unless it
   * wants work again first, wait on the wake channel alone after WATCH_AFTER_MS.
   */
  watchWhileBusy(): void {
    const wake = this.wake;
    if (!wake || this.closed || this.watching || this.watchTimer) return;
    this.watchWanted = true;
    this.watchTimer = setTimeout(() => {
      this.watchTimer = undefined;
      if (!this.watchWanted || this.closed || this.watching) return;
      this.watching = this.watchLoop(wake).finally(() => (this.watching = undefined));
    }, WATCH_AFTER_MS);
    this.watchTimer.unref();
  }

  private async watchLoop(wake: WakeChannel): Promise<void> {
    while (this.watchWanted && !this.closed && wake.hasJobs()) {
      let outcome: BlockOutcome;
      try {
        outcome = await this.blockOnce(DEFAULTS.worker.maxBlockSeconds, true);
      } catch {
        // The storage refused or went away: the slot loop reports that; the heartbeat still
        // brings cancel requests, at its interval.
        return;
      }
      if (outcome === 'lost') return;
    }
  }

  /** Stops the wait on the wake channel alone, ending it, before waiting for work. */
  private async endWatch(): Promise<void> {
    this.watchWanted = false;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    const watching = this.watching;
    if (!watching) return;
    this.interruptBlock?.();
    await watching;
  }

  /**
   * The signal's score (or `wake` when the wake channel was written), or why there is none:
   * timed out, interrupted, or lost. `wakeOnly` waits on the wake channel alone. A wake read by
   * a wait already given up (interrupted) is still acted on.
   */
  private async blockOnce(timeoutSeconds: number, wakeOnly: boolean): Promise<BlockOutcome> {
    const controller = new AbortController();
    this.interruptBlock = () => controller.abort();
    const wake = this.wake;
    // A cancel request: the heartbeat takes it now. A poke only ended the wait.
    const onWake = (member: string) => {
      if (member === WAKE_MEMBER.cancel) wake?.onWake();
    };
    try {
      const outcome =
        wakeOnly && wake
          ? await this.backend.waitForWake(timeoutSeconds, wake.workerId, {
              signal: controller.signal,
              onWake,
            })
          : await this.backend.waitForMarker(timeoutSeconds, {
              wakeWorker: wake?.workerId,
              signal: controller.signal,
              onWake,
            });
      return typeof outcome === 'object' ? 'wake' : outcome;
    } catch (error) {
      if (this.stopped()) return 'interrupted';
      throw error;
    } finally {
      this.interruptBlock = undefined;
    }
  }
}
