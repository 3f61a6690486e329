/**
 * The jobs a Worker is running, with how far each has got. closeGracefully needs the cut this
 * gives: a job whose processor has not returned by the deadline goes back to wait and its late
 * result is ignored; a job whose outcome is being written is left to finish.
 *
 * Kept small on purpose: a worker with concurrency 10,000 holds one Flight per running job, so a
 * flight is a plain object and its "done" promise is only made when closeGracefully asks.
 */
import type { CancelRequest } from './heartbeat-keys';

export type FlightPhase =
  /** The processor runs. */
  | 'running'
  /** The processor returned; the outcome is being written. */
  | 'finishing'
  /** Given back to wait by closeGracefully: whatever the processor does now is ignored. */
  | 'returned';

/** Where a running job's `job.signal` comes from (the slot strategy that runs it). */
export interface FlightSignals {
  signalOf(flight: Flight): AbortSignal;
}

export class Flight {
  phase: FlightPhase = 'running';
  // The two fields below are set on rare paths only (closeGracefully, a signal asked for), so
  // they are declared, not defined: an instance without them is 16 bytes smaller.
  /** Set by whenDone(): called once the Worker is done with the job. */
  declare onDone?: () => void;
  /**
   * The job's own abort signal source, made only for a processor that takes a signal (bullmq's
   * rule: a third parameter, or a sandboxed processor) or that reads `job.signal` (made then):
   * worker.cancelJob aborts it.
   */
  declare controller?: AbortController;
  /**
   * Set when a cancel request through Redis reached the job (queue.cancelJob, the console):
   * however its processor gives up, the attempt ends as cancelled, not retried.
   */
  declare cancel?: CancelRequest;

  constructor(
    readonly jobId: string,
    readonly token: string,
    private readonly signals?: FlightSignals,
  ) {}

  /** `job.signal` while the job runs (the worker's RUNNING_JOB_SIGNAL looks it up here). */
  jobSignal(): AbortSignal | undefined {
    return this.signals ? this.signals.signalOf(this) : this.controller?.signal;
  }
}

export class InFlightJobs {
  /** By job id: the jobs of one batch share a token. */
  private readonly flights = new Map<string, Flight>();

  start(jobId: string, token: string, signals?: FlightSignals): Flight {
    const flight = new Flight(jobId, token, signals);
    this.flights.set(jobId, flight);
    return flight;
  }

  end(flight: Flight): void {
    if (this.flights.get(flight.jobId) !== flight) return;
    this.flights.delete(flight.jobId);
    flight.onDone?.();
  }

  /** The flight of a running job, if any. */
  get(jobId: string): Flight | undefined {
    return this.flights.get(jobId);
  }

  /** Resolves once the Worker is done with the job (outcome written or given up). */
  whenDone(flight: Flight): Promise<void> {
    if (this.flights.get(flight.jobId) !== flight) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = flight.onDone;
      flight.onDone = () => {
        previous?.();
        resolve();
      };
    });
  }

  /**
   * Aborts the signal of a running job (worker.cancelJob); false when the job is not running
   * here or its processor takes no signal (and has not read job.signal). What the job becomes is up to its processor: a
   * rejection is an ordinary failed attempt, a return completes it.
   */
  cancel(jobId: string, reason?: unknown): boolean {
    const controller = this.flights.get(jobId)?.controller;
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  /**
   * A cancel request through Redis for a running job: marks its flight (the attempt then ends as
   * cancelled) and aborts its signal with the reason, as cancelJob would. A second request keeps
   * the first's reason and may add `force`. Undefined when the job does not run here, or is
   * already being finished.
   */
  requestCancel(jobId: string, request: CancelRequest): Flight | undefined {
    const flight = this.flights.get(jobId);
    if (!flight || flight.phase !== 'running') return undefined;
    flight.cancel = {
      reason: flight.cancel?.reason ?? request.reason,
      force: flight.cancel?.force === true || request.force,
    };
    flight.controller?.abort(signalReason(flight.cancel.reason));
    return flight;
  }

  /** Aborts the signal of every running job that has one. */
  cancelAll(reason?: unknown): void {
    for (const flight of this.flights.values()) flight.controller?.abort(reason);
  }

  /** Ids of the jobs in flight, at most `limit` of them. */
  ids(limit: number): string[] {
    const ids: string[] = [];
    for (const jobId of this.flights.keys()) {
      if (ids.length >= limit) break;
      ids.push(jobId);
    }
    return ids;
  }

  inPhase(phase: FlightPhase): Flight[] {
    return [...this.flights.values()].filter((flight) => flight.phase === phase);
  }

  get size(): number {
    return this.flights.size;
  }
}

/** The reason a job's signal aborts with: the cancel's, or the default AbortError for none. */
export function signalReason(reason: string): string | undefined {
  return reason === '' ? undefined : reason;
}
