/**
 * Polls a URL until it answers as wanted: how the launcher knows a child it started is serving
 * (the console's /api/health, the runner's /readyz) before it says the system is up.
 */
import type { ManagedChild } from './child-process';

export class StartTimeoutError extends Error {
  override readonly name = 'StartTimeoutError';
}

export interface WaitForHttpOptions {
  url: string;
  /** The process expected to answer: if it exits, waiting stops at once. */
  child: ManagedChild;
  timeoutMs: number;
  /** Which statuses count (default: 200 only). */
  accept?: (status: number) => boolean;
  intervalMs?: number;
}

export async function waitForHttp(options: WaitForHttpOptions): Promise<number> {
  const accept = options.accept ?? ((status) => status === 200);
  const deadline = Date.now() + options.timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!options.child.running()) {
      throw new StartTimeoutError(
        `${options.child.label} exited (${await options.child.exited}) before ${options.url} answered`,
      );
    }
    try {
      const response = await fetch(options.url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (accept(response.status)) return response.status;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
  throw new StartTimeoutError(
    `${options.url} did not answer within ${options.timeoutMs} ms (last: ${last})`,
  );
}
