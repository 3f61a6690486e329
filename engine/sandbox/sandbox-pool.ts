/**
 * The sandbox children of one Worker: started on demand, reused across jobs, dropped when they
 * die. The Worker never runs more than `concurrency` jobs at once and each job holds one child,
 * so at most `concurrency` children are alive.
 */
import { SandboxAbortedError, SandboxCrashError } from './errors';
import { SandboxChild } from './sandbox-child';
import type { ChildStartOptions } from './transport';

/** How long an idle child gets to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 2_000;

export class SandboxPool {
  private readonly idle: SandboxChild[] = [];
  private readonly children = new Set<SandboxChild>();
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly useWorkerThreads: boolean,
    /** A child that died while idle, not stopped by us (a stray timer threw, it was killed). */
    private readonly onIdleDeath: (error: SandboxCrashError) => void,
    private readonly startOptions: ChildStartOptions = {},
  ) {}

  /** An idle child, or a new one once it has loaded the processor (rejects SandboxLoadError). */
  async acquire(): Promise<SandboxChild> {
    if (this.closed) throw new SandboxAbortedError();
    for (let child = this.idle.pop(); child; child = this.idle.pop()) {
      if (child.isAlive()) return child;
    }
    const child = new SandboxChild(this.file, this.useWorkerThreads, this.startOptions);
    this.children.add(child);
    void child.exited.then((exit) => {
      this.children.delete(child);
      const at = this.idle.indexOf(child);
      if (at >= 0) this.idle.splice(at, 1);
      if (at >= 0 && !child.stopping) {
        this.onIdleDeath(
          new SandboxCrashError(
            `Sandboxed processor child ${child.pid} died while idle ` +
              `(${exit.error?.message ?? (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`)})`,
          ),
        );
      }
    });
    try {
      await child.ready;
    } catch (error) {
      void child.kill();
      throw error;
    }
    return child;
  }

  /** Back to the idle list after a job; a pool closed meanwhile stops it instead. */
  release(child: SandboxChild): void {
    if (!child.isAlive()) return;
    if (this.closed) void child.stop(STOP_GRACE_MS);
    else this.idle.push(child);
  }

  /** Process ids of the live children (this process's own id for worker threads). */
  pids(): number[] {
    return [...this.children].map((child) => child.pid);
  }

  /** Children running a job and children waiting for one. */
  stats(): { busy: number; idle: number } {
    const idle = this.idle.filter((child) => child.isAlive()).length;
    return { busy: this.children.size - idle, idle };
  }

  get size(): number {
    return this.children.size;
  }

  /**
   * Stops every child: idle ones with SIGTERM (killed after a grace period), busy ones (their
   * job was given up) at once. Resolves once all are gone.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all(
      [...this.children].map((child) =>
        child.isBusy() ? child.kill() : child.stop(STOP_GRACE_MS),
      ),
    );
  }
}
