import { isCluster, type RedisClient } from '../connection';
import type { QueueBackend } from '../backend/queue-backend';
import { DEFAULTS } from '../defaults';
import { WAKE_MEMBER } from './heartbeat-keys';

/** The worker's wake key and what a write to it means (a cancel request waits in Redis). */
export interface WakeChannel {
  key: string;
  onWake(): void;
  /** True while the worker runs jobs: only then is a wait on the wake key alone worth a call. */
  hasJobs(): boolean;
}

/**
 * How long the slot loop sleeps with its slots busy before the wake key gets a wait of its own:
 * a job shorter than this costs no extra command, a longer one is reachable within it.
 */
export const WATCH_AFTER_MS = 200;
/** Life of a `poke` member nobody popped (the wait it was for had just ended). */
const POKE_TTL_MS = 60_000;

type BlockOutcome = number | 'wake' | 'timeout' | 'interrupted' | 'lost';

/**
 * An idle worker's wait for work: blocks on the queue's marker (BZPOPMIN on the worker's own
 * blocking connection) until jobs are signalled, the next delayed job is due, or the drain delay
 * passes. A watchdog drops the connection if Redis never answers, so a dead socket cannot wedge
 * the worker; pause/close end a wait at once and free the connection with CLIENT UNBLOCK.
 *
 * With a wake channel the same BZPOPMIN also watches the worker's wake key, so a cancel request
 * reaches an idle worker at no extra cost. A worker whose slots are all busy does not wait on the
 * marker: then, once it has slept WATCH_AFTER_MS, the connection blocks on the wake key alone,
 * and that wait is ended (CLIENT UNBLOCK, or a `poke` on a Cluster) when the marker is wanted
 * again.
 */
export class MarkerWaiter {
  /** Ends the current blocking call at once. */
  private interruptBlock?: () => void;
  /** Redis CLIENT ID of the blocking connection (refreshed on every connect). */
  private clientId?: number;
  private wake?: WakeChannel;
  /** The wait on the wake key alone, while one runs. */
  private watching?: Promise<void>;
  private watchWanted = false;
  private watchTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly backend: QueueBackend,
    private readonly blocking: RedisClient,
    /** The worker's other connection, free to send CLIENT UNBLOCK. */
    private readonly control: RedisClient,
    private readonly drainDelaySeconds: number,
    /** True once the wait should end (worker paused or closing). */
    private readonly stopped: () => boolean,
    private readonly idleRecheckMs: number = DEFAULTS.worker.idleRecheckMs,
  ) {
    // (connect() opens blocking connections with autoResendUnfulfilledCommands off: a BZPOPMIN
    // abandoned by the watchdog must not be re-sent on the new connection.)
    // ioredis neither settles nor re-sends (autoResend off) a BZPOPMIN whose socket closed:
    // end the wait ourselves, so a killed connection costs a reconnect, not a watchdog period.
    blocking.on('close', () => this.interruptBlock?.());
    // On a Cluster, CLIENT ID and CLIENT UNBLOCK would each reach some node, not necessarily the
    // one holding the block (and an id is only unique per node): there a wait ends locally and
    // its BZPOPMIN runs out on the server (at most drainDelay), or goes with the connection.
    if (isCluster(blocking)) return;
    blocking.on('ready', () => {
      blocking
        .client('ID')
        .then((id) => (this.clientId = Number(id)))
        .catch(() => undefined);
    });
  }

  /** Watches the worker's wake key too (a worker with heartbeats; see heartbeat.ts). */
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
    if (this.clientId !== undefined && this.control.status === 'ready') {
      this.control.client('UNBLOCK', this.clientId).catch(() => undefined);
    }
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
   * wants the marker again first, wait on the wake key alone after WATCH_AFTER_MS.
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
        // Redis refused or went away: the slot loop reports that; the heartbeat still brings
        // cancel requests, at its interval.
        return;
      }
      if (outcome === 'lost') return;
    }
  }

  /** Stops the wait on the wake key alone, ending its blocking call, before the marker's. */
  private async endWatch(): Promise<void> {
    this.watchWanted = false;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    const watching = this.watching;
    if (!watching) return;
    this.interruptBlock?.();
    if (this.clientId !== undefined && this.control.status === 'ready') {
      this.control.client('UNBLOCK', this.clientId).catch(() => undefined);
    } else if (this.wake) {
      // On a Cluster the blocked call is ended by a member of its own key (routed by its slot):
      // otherwise the marker's BZPOPMIN would queue behind it for up to maxBlockSeconds.
      this.control
        .multi()
        .zadd(this.wake.key, 0, WAKE_MEMBER.poke)
        .pexpire(this.wake.key, POKE_TTL_MS)
        .exec()
        .catch(() => undefined);
    }
    await watching;
  }

  /**
   * The marker's score (or `wake` when the wake key was written), or why there is none: timed
   * out, interrupted, or the connection lost. `wakeOnly` waits on the wake key alone. A wake
   * read by a call whose wait was already given up (interrupted) is still acted on.
   */
  private async blockOnce(timeoutSeconds: number, wakeOnly: boolean): Promise<BlockOutcome> {
    let watchdog: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      watchdog = setTimeout(
        () => resolve('expired'),
        timeoutSeconds * 1000 + DEFAULTS.worker.blockWatchdogGraceMs,
      );
    });
    const interrupted = new Promise<'interrupted'>((resolve) => {
      this.interruptBlock = () => resolve('interrupted');
    });
    const wake = this.wake;
    const pending: Promise<number | 'wake' | undefined> = (
      wakeOnly && wake
        ? this.backend.waitForWake(timeoutSeconds, wake.key).then((member) => ({ wake: member }))
        : this.backend.waitForMarker(timeoutSeconds, wake?.key)
    ).then((reply) => {
      if (typeof reply !== 'object') return reply;
      // A cancel request: the heartbeat takes it now. A poke only ended the wait.
      if (reply.wake === WAKE_MEMBER.cancel) wake?.onWake();
      return reply.wake === undefined ? undefined : 'wake';
    });
    // Once the race is decided a late rejection (dropped connection) must not go unhandled.
    pending.catch(() => undefined);
    try {
      const outcome = await Promise.race([pending, expired, interrupted]);
      if (outcome === 'interrupted') return 'interrupted';
      if (outcome === 'expired') {
        // Redis never answered: assume a dead socket and make a fresh one.
        this.blocking.disconnect(true);
        return 'lost';
      }
      return outcome ?? 'timeout';
    } catch (error) {
      if (this.stopped()) return 'interrupted';
      // A master that becomes a replica (a failover) ends its blocked commands with UNBLOCKED:
      // not a fault of ours, just a cue to fetch again, which reaches the new master.
      if (error instanceof Error && error.message.startsWith('UNBLOCKED')) return 'lost';
      throw error;
    } finally {
      clearTimeout(watchdog);
      this.interruptBlock = undefined;
    }
  }
}
