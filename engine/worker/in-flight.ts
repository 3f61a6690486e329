/**
 * The jobs a Worker is running, with how far each has got. closeGracefully needs the cut this
 * gives: a job whose processor has not returned by the deadline goes back to wait and its late
 * result is ignored; a job whose outcome is being written is left to finish.
 */
export type FlightPhase =
  /** The processor runs. */
  | 'running'
  /** The processor returned; the outcome is being written. */
  | 'finishing'
  /** Given back to wait by closeGracefully: whatever the processor does now is ignored. */
  | 'returned';

export interface Flight {
  readonly jobId: string;
  readonly token: string;
  phase: FlightPhase;
  /** Resolves once the Worker is done with the job (outcome written or given up). */
  readonly done: Promise<void>;
}

export class InFlightJobs {
  private readonly flights = new Map<string, Flight & { resolve: () => void }>();

  start(jobId: string, token: string): Flight {
    let resolve!: () => void;
    const done = new Promise<void>((res) => (resolve = res));
    const flight = { jobId, token, phase: 'running' as FlightPhase, done, resolve };
    this.flights.set(token, flight);
    return flight;
  }

  end(flight: Flight): void {
    const tracked = this.flights.get(flight.token);
    if (tracked !== flight) return;
    this.flights.delete(flight.token);
    tracked.resolve();
  }

  inPhase(phase: FlightPhase): Flight[] {
    return [...this.flights.values()].filter((flight) => flight.phase === phase);
  }

  get size(): number {
    return this.flights.size;
  }
}
