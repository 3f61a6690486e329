/**
 * A lease in Redis: one holder among many processes (consoles, runners) for a periodic duty that
 * must run once, not once per process: sampling the backlog history, sending notifications.
 * The holder keeps it by renewing it well within its TTL; a holder that dies (kill -9, its machine
 * gone) stops renewing, and another process takes over once the TTL has run out.
 *
 * Turns: the duty is divided in numbered turns (a minute of history, a round of notifications).
 * `claim(turn)` holds the lease and claims the turn in one script call, and succeeds once per
 * turn across all processes, so a takeover inside a turn neither repeats it nor, as long as the
 * takeover comes before the turn ends, skips it. lua/holdLease-2.lua; docs/redis-keys.md.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisClient } from '../../backend/redis/connection';
import { runScript } from '../../backend/redis/run-script';

export interface LeaseOptions {
  /** How long the lease outlives its holder's last renewal. */
  ttlMs: number;
  /** How long the last claimed turn is remembered (longer than a turn; default one day). */
  turnMemoryMs?: number;
  /** This process's id in the lease (default: host, pid and a random part). */
  holder?: string;
}

export interface LeaseState {
  held: boolean;
  claimed: boolean;
}

/**
 * The lease's keys: one hash tag around the whole name, so on a Redis Cluster both keys of the
 * script share a slot (a `{...}` in the name itself comes first and is shared the same way).
 */
export function leaseKeys(prefix: string, name: string): [lease: string, lastTurn: string] {
  const lease = `{${prefix}:oxmq:lease:${name}}`;
  return [lease, `${lease}:turn`];
}

export class RedisLease {
  readonly holder: string;
  private readonly keys: [string, string];

  constructor(
    private readonly client: RedisClient,
    prefix: string,
    name: string,
    private readonly options: LeaseOptions,
  ) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.keys = leaseKeys(prefix, name);
  }

  /** Takes the lease when it is free, keeps it when this process holds it. */
  async hold(): Promise<boolean> {
    return (await this.call('', '0')).held;
  }

  /** Holds the lease and claims `turn` (an integer) when no process has claimed it or a later one. */
  claim(turn: number): Promise<LeaseState> {
    return this.call(String(turn), '0');
  }

  /** Gives the lease up (when this process holds it), so another takes over at once. */
  async release(): Promise<void> {
    await this.call('', '1');
  }

  private async call(turn: string, giveUp: '0' | '1'): Promise<LeaseState> {
    const reply = (await runScript(this.client, 'holdLease', this.keys, [
      this.holder,
      this.options.ttlMs,
      turn,
      giveUp,
      this.options.turnMemoryMs ?? 86_400_000,
    ])) as [number, number];
    return { held: reply[0] === 1, claimed: reply[1] === 1 };
  }
}
