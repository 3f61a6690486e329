import type { Redis } from 'ioredis';
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
    private readonly blocking: Redis,
    /** The worker's other connection, free to send CLIENT UNBLOCK. */
    private readonly control: Redis,
    private readonly drainDelaySeconds: number,
    /** True once the wait should end (worker paused or closing). */
    private readonly stopped: () => boolean,
  ) {
    // A BZPOPMIN abandoned by the watchdog must not be re-sent on the new connection.
    blocking.options.autoResendUnfulfilledCommands = false;
    // ioredis neither settles nor re-sends (autoResend off) a BZPOPMIN whose socket closed:
    // end the wait ourselves, so a killed connection costs a reconnect, not a watchdog period.
    blocking.on('close', () => this.interruptBlock?.());
    blocking.on('ready', () => {
      blocking
        .client('ID')
        .then((id) => (this.clientId = Number(id)))
        .catch(() => undefined);
    });
  }

  /** Waits for work; `nextDelayedTs` (> 0) is when the earliest delayed job is due. */
  async wait(nextDelayedTs: number): Promise<void> {
    let blockUntil = nextDelayedTs;
    while (!this.stopped()) {
      const now = Date.now();
      if (blockUntil > 0 && blockUntil <= now) return;
      const seconds =
        blockUntil > 0
          ? Math.min((blockUntil - now) / 1000, DEFAULTS.worker.maxBlockSeconds)
          : this.drainDelaySeconds;
      const score = await this.blockOnce(Math.max(seconds, 0.001));
      if (score === undefined) return; // timed out or interrupted: poll again
      if (score <= 0 || score <= Date.now()) return;
      blockUntil = score;
    }
  }

  /** Ends a wait in progress now (pause, close). */
  interrupt(): void {
    this.interruptBlock?.();
    if (this.clientId !== undefined && this.control.status === 'ready') {
      this.control.client('UNBLOCK', this.clientId).catch(() => undefined);
    }
  }

  private async blockOnce(timeoutSeconds: number): Promise<number | undefined> {
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
      if (outcome === 'interrupted') return undefined;
      if (outcome === 'expired') {
        // Redis never answered: assume a dead socket and make a fresh one.
        this.blocking.disconnect(true);
        return undefined;
      }
      return outcome;
    } catch (error) {
      if (this.stopped()) return undefined;
      throw error;
    } finally {
      clearTimeout(watchdog);
      this.interruptBlock = undefined;
    }
  }
}
