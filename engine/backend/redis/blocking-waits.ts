/**
 * A worker's waits for work on Redis: BZPOPMIN on its own blocking connection, over the queue's
 * marker and, when asked, the worker's wake key (one hash slot: both live under the queue's base
 * key). What only Redis needs is handled here: a wait given up is ended on the server too (CLIENT
 * UNBLOCK from the command connection, or on a Cluster a `poke` in the wake key, since CLIENT
 * UNBLOCK may reach another node), and a watchdog drops a connection whose reply never comes, so
 * a dead socket cannot wedge the worker.
 */
import { DEFAULTS } from '../../defaults';
import { WAKE_MEMBER } from '../../worker/heartbeat-keys';
import type { WaitOutcome } from '../queue-backend';
import { isCluster, type RedisClient } from './connection';

/** Life of a `poke` member nobody popped (the wait it was for had just ended). */
const POKE_TTL_MS = 60_000;

/** A BZPOPMIN reply: the key, the member and its score. */
export type Popped = [key: string, member: string, score: string];

export class BlockingWaits {
  /** Redis CLIENT ID of the blocking connection (refreshed on every connect). */
  private clientId?: number;

  constructor(
    private readonly blocking: RedisClient,
    /** The worker's other connection, free to send CLIENT UNBLOCK while the other blocks. */
    private readonly control: RedisClient,
  ) {
    // (connect() opens blocking connections with autoResendUnfulfilledCommands off: a BZPOPMIN
    // abandoned by the watchdog must not be re-sent on the new connection.)
    // On a Cluster, CLIENT ID and CLIENT UNBLOCK would each reach some node, not necessarily the
    // one holding the block (and an id is only unique per node).
    if (isCluster(blocking)) return;
    const readId = () =>
      blocking
        .client('ID')
        .then((id) => (this.clientId = Number(id)))
        .catch(() => undefined);
    blocking.on('ready', readId);
    if (blocking.status === 'ready') void readId();
  }

  /**
   * Pops the lowest member of `keys`, waiting up to timeoutSeconds. `signal` gives the wait up
   * (`interrupted`), as does the connection closing (ioredis neither settles nor re-sends a
   * BZPOPMIN whose socket closed). `pokeKey`: on a Cluster, where a wait given up is ended by
   * a member of its own key. `onLate`: a reply that arrives after the wait was given up.
   */
  async pop(
    keys: string[],
    timeoutSeconds: number,
    signal?: AbortSignal,
    pokeKey?: string,
    onLate?: (reply: Popped) => void,
  ): Promise<Popped | Exclude<WaitOutcome, number | { wake: string }>> {
    if (signal?.aborted) return 'interrupted';
    let watchdog: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      watchdog = setTimeout(
        () => resolve('expired'),
        timeoutSeconds * 1000 + DEFAULTS.worker.blockWatchdogGraceMs,
      );
    });
    let giveUp!: () => void;
    const interrupted = new Promise<'interrupted'>((resolve) => {
      giveUp = () => resolve('interrupted');
    });
    signal?.addEventListener('abort', giveUp, { once: true });
    this.blocking.once('close', giveUp);
    let settled = false;
    const pending = this.blocking.bzpopmin(...keys, timeoutSeconds).then((reply) => {
      if (settled && reply) onLate?.(reply as Popped);
      return reply as Popped | null;
    });
    // Once the race is decided a late rejection (dropped connection) must not go unhandled.
    pending.catch(() => undefined);
    try {
      const outcome = await Promise.race([pending, expired, interrupted]);
      if (outcome === 'interrupted') {
        if (signal?.aborted) this.unblock(pokeKey);
        return 'interrupted';
      }
      if (outcome === 'expired') {
        // Redis never answered: assume a dead socket and make a fresh one.
        this.blocking.disconnect(true);
        return 'lost';
      }
      return outcome ?? 'timeout';
    } catch (error) {
      if (signal?.aborted) return 'interrupted';
      // A master that becomes a replica (a failover) ends its blocked commands with UNBLOCKED:
      // not a fault of ours, just a cue to look for work again, which reaches the new master.
      if (error instanceof Error && error.message.startsWith('UNBLOCKED')) return 'lost';
      throw error;
    } finally {
      settled = true;
      clearTimeout(watchdog);
      signal?.removeEventListener('abort', giveUp);
      this.blocking.off('close', giveUp);
    }
  }

  /** Ends the blocked command on the server, so the connection is free for the next one. */
  private unblock(pokeKey: string | undefined): void {
    if (this.clientId !== undefined && this.control.status === 'ready') {
      this.control.client('UNBLOCK', this.clientId).catch(() => undefined);
    } else if (pokeKey) {
      this.control
        .multi()
        .zadd(pokeKey, 0, WAKE_MEMBER.poke)
        .pexpire(pokeKey, POKE_TTL_MS)
        .exec()
        .catch(() => undefined);
    }
  }
}
