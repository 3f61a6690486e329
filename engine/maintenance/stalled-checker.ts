import type { QueueBackend } from '../backend/queue-backend';

export interface StalledCheckerConfig {
  maxStalledCount: number;
  stalledInterval: number;
}

/**
 * Runs the two-phase stalled check at start and every stalledInterval. The check itself is
 * throttled in Redis (stalled-check key), so many workers on one queue cost one check per interval.
 */
export class StalledChecker {
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly backend: QueueBackend,
    private readonly config: StalledCheckerConfig,
    private readonly onStalled: (jobIds: string[]) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    this.runOnce()
      .catch(this.onError)
      .finally(() => {
        if (!this.running) return;
        this.timer = setTimeout(() => this.tick(), this.config.stalledInterval);
        this.timer.unref();
      });
  }

  /** One check; returns the ids moved back to wait. */
  async runOnce(): Promise<string[]> {
    const ids = await this.backend.recoverStalledJobs(
      this.config.maxStalledCount,
      this.config.stalledInterval,
    );
    if (ids.length > 0) this.onStalled(ids);
    return ids;
  }
}
