import { isCluster, type RedisClient } from '../connection';
import type { QueueBackend } from '../backend/queue-backend';
import { DEFAULTS } from '../defaults';

/**
 * An idle worker's wait for work: blocks on the queue's marker (BZPOPMIN on the worker's own
 * blocking connection) until jobs are signalled, the next delayed job is due, or the drain delay
 * passes. A watchdog drops the connection if Redis never answers, so a dead socket cannot wedge
 * the worker; pause/close end a wait at once and free the connection with CLIENT UNBLOCK.
 */
export class MarkerWaiter {
  /** Ends the current blocking call at once. */
  private interruptBlock?: () => void;
  /** Redis CLIENT ID of the blocking connection (refreshed on every connect). */
  private clientId?: number;

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
    let blockUntil = nextDelayedTs;
    const recheckAt = Date.now() + (held ? 0 : idleRecheckMs);
    while (!this.stopped()) {
      const now = Date.now();
      if (blockUntil > 0 && blockUntil <= now) return;
      const seconds =
        blockUntil > 0
          ? Math.min((blockUntil - now) / 1000, DEFAULTS.worker.maxBlockSeconds)
          : this.drainDelaySeconds;
      const outcome = await this.blockOnce(Math.max(seconds, 0.001));
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

  /** The marker's score, or why there is none: timed out, interrupted, or the connection lost. */
  private async blockOnce(
    timeoutSeconds: number,
  ): Promise<number | 'timeout' | 'interrupted' | 'lost'> {
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
    const pending = this.backend.waitForMarker(timeoutSeconds);
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
