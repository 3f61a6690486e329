/**
 * A worker's background services (lock renewal, stalled checks, heartbeat, the marker wait, the
 * completion batcher, sandbox children) behind one lifecycle: the worker registers each once,
 * starts them in registration order and stops them in reverse on close, so closing cannot forget
 * one and a service that fails to start is handled here, in one place.
 */
import { OxmqError } from '../errors';

export interface WorkerService {
  /** Names the service in errors. */
  readonly name: string;
  /** Begins the service's work (timers, first call). Called at most once while started. */
  start(): void | Promise<void>;
  /**
   * Ends the service's work; resolves once nothing of it runs any more. Called for every
   * registered service on close, started or not, so it must accept a service never started.
   */
  stop(): Promise<void>;
}

/** A service refused to start; the services started before it were stopped again. */
export class WorkerServiceStartError extends OxmqError {
  readonly code = 'WORKER_SERVICE_START';
  constructor(
    readonly service: string,
    override readonly cause: unknown,
  ) {
    super(
      `Worker service ${service} failed to start: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

export class WorkerServices {
  private readonly services: WorkerService[] = [];
  private readonly started = new Set<WorkerService>();
  private stopping?: Promise<void>;

  /** @param onStopError told each error a service's stop() throws; the others still stop. */
  constructor(private readonly onStopError: (error: unknown) => void) {}

  add(service: WorkerService): void {
    this.services.push(service);
  }

  /** The registered service names, in start order. */
  names(): string[] {
    return this.services.map(({ name }) => name);
  }

  isStarted(name: string): boolean {
    return [...this.started].some((service) => service.name === name);
  }

  /**
   * Starts every registered service not started yet, in order. When one fails the ones this
   * call started are stopped again, in reverse, and the call rejects with a
   * WorkerServiceStartError naming it. Does nothing once stopAll was called.
   */
  async startAll(): Promise<void> {
    const startedNow: WorkerService[] = [];
    for (const service of this.services) {
      if (this.stopping) return;
      if (this.started.has(service)) continue;
      try {
        await service.start();
      } catch (error) {
        await this.stopEach([service, ...startedNow.reverse()]);
        throw new WorkerServiceStartError(service.name, error);
      }
      this.started.add(service);
      startedNow.push(service);
    }
  }

  /** Starts one registered service by name (manual processing starts the stalled check alone). */
  async start(name: string): Promise<void> {
    const service = this.services.find((candidate) => candidate.name === name);
    if (!service || this.started.has(service) || this.stopping) return;
    try {
      await service.start();
    } catch (error) {
      await this.stopEach([service]);
      throw new WorkerServiceStartError(service.name, error);
    }
    this.started.add(service);
  }

  /** Stops every registered service, last registered first; every call gets the same promise. */
  stopAll(): Promise<void> {
    this.stopping ??= this.stopEach([...this.services].reverse()).then(() => this.started.clear());
    return this.stopping;
  }

  /** Stops `services` one after the other, in the order given; a failing stop is reported. */
  private async stopEach(services: WorkerService[]): Promise<void> {
    for (const service of services) {
      try {
        await service.stop();
      } catch (error) {
        this.onStopError(error);
      }
      this.started.delete(service);
    }
  }
}
