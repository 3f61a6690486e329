import type { QueueBackend } from '../backend/queue-backend';

export interface LockRenewerConfig {
  lockDuration: number;
  lockRenewTime: number;
}

interface TrackedLock {
  token: string;
  renewedAt: number;
}

/**
 * Keeps the locks of a worker's in-flight jobs alive: every lockRenewTime/2 it renews, in one
 * batched call, each lock not renewed for lockRenewTime/2 or more.
 */
export class LockRenewer {
  private readonly locks = new Map<string, TrackedLock>();
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly backend: QueueBackend,
    private readonly config: LockRenewerConfig,
    private readonly onLockLost: (jobId: string) => void,
    private readonly onError: (error: unknown) => void,
    /** Told the ids of each batch renewed (bullmq's `locksRenewed` event). */
    private readonly onRenewed?: (jobIds: string[]) => void,
  ) {}

  track(jobId: string, token: string): void {
    this.locks.set(jobId, { token, renewedAt: Date.now() });
  }

  untrack(jobId: string): void {
    this.locks.delete(jobId);
  }

  get size(): number {
    return this.locks.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.runOnce()
        .then(({ renewed }) => {
          if (renewed.length > 0) this.onRenewed?.(renewed);
        })
        .catch(this.onError)
        .finally(() => this.schedule());
    }, this.config.lockRenewTime / 2);
    this.timer.unref();
  }

  /** Renews what is due; returns the ids renewed and the ids whose lock was lost. */
  async runOnce(now = Date.now()): Promise<{ renewed: string[]; lost: string[] }> {
    const due = [...this.locks].filter(
      ([, lock]) => now - lock.renewedAt >= this.config.lockRenewTime / 2,
    );
    if (due.length === 0) return { renewed: [], lost: [] };
    const ids = due.map(([id]) => id);
    const lost = new Set(
      await this.backend.extendLocks(
        ids,
        due.map(([, lock]) => lock.token),
        this.config.lockDuration,
      ),
    );
    const renewed: string[] = [];
    for (const id of ids) {
      const lock = this.locks.get(id);
      if (!lock) continue;
      if (lost.has(id)) {
        this.locks.delete(id);
        this.onLockLost(id);
      } else {
        lock.renewedAt = now;
        renewed.push(id);
      }
    }
    return { renewed, lost: [...lost] };
  }
}
