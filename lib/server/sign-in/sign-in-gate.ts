/**
 * A process-wide bound on password checks: each costs a bcrypt hash on the console's one
 * thread, so a flood of sign-ins (distinct usernames and addresses, which the per-key backoff
 * does not see) would otherwise starve every other request. A few run at once, a few more
 * wait their turn, the rest are turned away at once with "busy".
 */
export class SignInBusyError extends Error {
  override readonly name = 'SignInBusyError';
}

export class SignInGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxWaiting: number,
  ) {}

  /** Runs `check` when a slot is free; throws SignInBusyError when the queue is full. */
  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxRunning) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new SignInBusyError('Too many sign-ins at once');
      }
      // The slot is handed over by release(): `running` never drops below the queue's demand.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await check();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
