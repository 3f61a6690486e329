/**
 * The worker's fetch → run → finish loop, the same for a Worker and a BatchWorker: it keeps up
 * to `concurrency` slots busy with what the strategy (slot-strategy.ts) fetches, sleeps while
 * the worker is paused, quiet, full or rate limited, waits on the queue's marker when there is
 * nothing to fetch, and returns once the worker is stopping. A slot runs one unit, then the next
 * one its finishing call fetched, and so on until none comes.
 */
import type { MarkerWaiter } from './marker-waiter';
import type { RateLimitGate } from './rate-limit-gate';
import type { SlotEnd, SlotStrategy } from './slot-strategy';

/** What the loop reads from and tells the worker it runs for. */
export interface SlotLoopHost {
  /** True once close() was called. */
  isStopping(): boolean;
  /** True while no new work may start (paused, or quieted through Redis). */
  isHeld(): boolean;
  concurrency(): number;
  nextToken(): string;
  /** The queue had nothing to fetch and no slot runs (emitted once per idle spell). */
  onDrained(): void;
  onError(error: unknown): void;
  /** Pause (ms) after a failed fetch before trying again. */
  readonly runRetryDelay: number;
  /** Longest sleep (ms) while rate limited before fetching again. */
  readonly maximumRateLimitDelay: number;
}

export class SlotLoop<Work extends object> {
  /** Slots running. A counter rather than a set of promises: see runSlot. */
  private slotCount = 0;
  /** Resolved when slotCount drops to 0; made only when someone waits for that. */
  private slotsEmpty?: { promise: Promise<void>; resolve: () => void };
  /** Wakes the loop when a slot frees up, the worker resumes, closes or changes concurrency. */
  private wake?: () => void;
  private drainedEmitted = false;

  constructor(
    private readonly host: SlotLoopHost,
    private readonly strategy: SlotStrategy<Work>,
    private readonly rateLimit: RateLimitGate,
    private readonly markerWaiter: MarkerWaiter,
  ) {}

  get activeSlots(): number {
    return this.slotCount;
  }

  /** Fetches and runs until the worker stops; slots still running are left to finish. */
  async run(): Promise<void> {
    const { host } = this;
    while (!host.isStopping()) {
      try {
        if (host.isHeld() || this.slotCount >= host.concurrency()) {
          await this.sleepUntilWoken();
          continue;
        }
        const waitForLimit = this.rateLimit.remaining();
        if (waitForLimit > 0) {
          await this.sleepUntilWoken(Math.min(waitForLimit, host.maximumRateLimitDelay));
          continue;
        }
        const result = await this.strategy.fetch(
          host.nextToken(),
          host.concurrency() - this.slotCount,
        );
        if (result.kind === 'work') {
          for (const work of result.works) this.startSlot(work);
          continue;
        }
        if (result.rateLimitTtl > 0) {
          this.rateLimit.limitFor(result.rateLimitTtl);
          continue;
        }
        if (!this.drainedEmitted && this.slotCount === 0) {
          this.drainedEmitted = true;
          host.onDrained();
        }
        await this.markerWaiter.wait(result.nextDelayedTs, result.held === true);
      } catch (error) {
        if (host.isStopping()) break;
        host.onError(error);
        await this.sleepUntilWoken(host.runRetryDelay);
      }
    }
  }

  /** Ends a sleep of the loop now (a slot freed, resume, close, more concurrency). */
  wakeUp(): void {
    this.wake?.();
  }

  /** Resolves once no slot runs. */
  whenEmpty(): Promise<void> {
    if (this.slotCount === 0) return Promise.resolve();
    if (!this.slotsEmpty) {
      let resolve!: () => void;
      const promise = new Promise<void>((res) => (resolve = res));
      this.slotsEmpty = { promise, resolve };
    }
    return this.slotsEmpty.promise;
  }

  /**
   * Sleeps until woken or `ms` passes. With jobs running, the blocking connection (which nothing
   * else uses meanwhile) waits on the worker's wake key, so a cancel request reaches them now.
   */
  private sleepUntilWoken(ms?: number): Promise<void> {
    if (this.slotCount > 0) this.markerWaiter.watchWhileBusy();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private startSlot(first: Work): void {
    this.drainedEmitted = false;
    this.slotCount += 1;
    this.runWork(first);
  }

  // A slot is a chain of calls on the shared handlers below rather than an async function: at
  // concurrency 10,000 a suspended async frame per slot (its generator, registers, promise and
  // await closures, some 450 bytes) is heap per in-flight job.
  private runWork(work: Work): void {
    const { strategy } = this;
    if (strategy.start) strategy.start(work, this.slotEnd);
    else strategy.run(work).then(this.afterWork, this.slotFailed);
  }

  private readonly afterWork = (next: Work | undefined): void => {
    if (!next) {
      this.slotEnded();
      return;
    }
    // A closing worker takes no new work, even what a finishing call fetched along.
    if (this.host.isStopping()) {
      this.strategy.giveBack(next).then(this.slotEnded, this.slotFailed);
      return;
    }
    this.runWork(next);
  };

  private readonly slotFailed = (error: unknown): void => {
    this.host.onError(error);
    this.slotEnded();
  };

  private readonly slotEnd: SlotEnd<Work> = { next: this.afterWork, failed: this.slotFailed };

  private readonly slotEnded = (): void => {
    this.slotCount -= 1;
    if (this.slotCount === 0 && this.slotsEmpty) {
      this.slotsEmpty.resolve();
      this.slotsEmpty = undefined;
    }
    this.wakeUp();
  };
}
