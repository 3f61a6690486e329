/**
 * Adds that overlap share script calls. A service's request handlers each await their own
 * `Queue.add` on one Queue; while a few add calls are on their way to Redis, the adds that
 * arrive meanwhile wait and then go together in one addJobBatch call (lua/addJobBatch-11.lua),
 * which writes each job exactly as addJob would and answers for each job on its own: a refused
 * job (its parent missing, say) fails only its own add.
 *
 * A lone add goes at once in its own addJob call, so an add awaited on its own waits for nothing
 * more than before; batching only happens while calls are already in flight, and the order of
 * the adds is the order of the calls (ioredis keeps a connection's commands in order, and the
 * waiting adds go in arrival order).
 */
import { UnexpectedReplyError } from '../../errors';
import type { AddResult, NewJob } from '../queue-backend';

/**
 * Add calls on their way at once before new adds wait. More than one keeps Redis busy while the
 * process reads a reply, as with completions (engine/worker/completion-batcher.ts).
 */
export const ADD_CALLS_IN_FLIGHT = 3;
/** Most adds in one batch call: bounds the call's time in Redis. */
const MAX_ADDS_PER_CALL = 250;

interface WaitingAdd {
  job: NewJob;
  resolve: (result: AddResult) => void;
  reject: (error: unknown) => void;
}

export interface AddSender {
  /** One add, in one addJob call. */
  addOne(job: NewJob): Promise<AddResult>;
  /** Several adds in one call; each job's outcome on its own, an Error when it was refused. */
  addMany(jobs: NewJob[]): Promise<(AddResult | Error)[]>;
}

export class AddCoalescer {
  private inFlight = 0;
  private waiting: WaitingAdd[] = [];

  constructor(private readonly sender: AddSender) {}

  add(job: NewJob): Promise<AddResult> {
    if (this.inFlight < ADD_CALLS_IN_FLIGHT && this.waiting.length === 0) {
      return this.track(this.sender.addOne(job));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
    });
  }

  private track<T>(call: Promise<T>): Promise<T> {
    this.inFlight += 1;
    return call.finally(() => {
      this.inFlight -= 1;
      this.sendWaiting();
    });
  }

  private sendWaiting(): void {
    while (this.inFlight < ADD_CALLS_IN_FLIGHT && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_ADDS_PER_CALL);
      if (batch.length === 1) {
        const [only] = batch;
        this.track(this.sender.addOne(only!.job)).then(only!.resolve, only!.reject);
        continue;
      }
      this.track(this.sender.addMany(batch.map((entry) => entry.job))).then(
        (outcomes) => {
          for (const [index, entry] of batch.entries()) {
            const outcome = outcomes[index];
            if (outcome instanceof Error) entry.reject(outcome);
            else if (outcome) entry.resolve(outcome);
            else entry.reject(new UnexpectedReplyError('addJobBatch replied without this job'));
          }
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      );
    }
  }
}
