/**
 * One POST of a notification body to one webhook, with bounded retries and exponential backoff.
 * A webhook fails an attempt with a non-2xx answer, a timeout or a connection error (refused,
 * reset, DNS); 5xx, 408, 425, 429, timeouts and connection errors are tried again after
 * `retryBaseMs`, then twice that, and so on (at most MAX_BACKOFF_MS, or a 429's Retry-After when
 * it asks for longer but within that bound), `maxAttempts` in all. Any other 4xx is final at
 * once: the receiver refuses the request itself, and sending it again cannot change that.
 *
 * Nothing here ever names the URL: errors are reduced to a code (`ECONNREFUSED`, `timeout`,
 * `HTTP 500`), as a URL may be the webhook's secret.
 */

export interface DeliveryOptions {
  /** Attempts in all, the first included (1 = no retry). */
  maxAttempts: number;
  /** Wait before the first retry; each further retry waits twice as long. */
  retryBaseMs: number;
  /** One attempt's limit, connection and answer included. */
  timeoutMs: number;
}

export interface DeliveryResult {
  ok: boolean;
  attempts: number;
  /** The last HTTP status answered; 0 when no answer came. */
  status: number;
  /** Why the last attempt failed (absent when it succeeded). */
  error?: string;
}

export interface AttemptFailure {
  attempt: number;
  error: string;
  /** ms until the next attempt; null when this was the last. */
  retryInMs: number | null;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/** How long the attempt after `attempt` waits (attempt 1 failed: retryBaseMs). */
function backoffMs(attempt: number, retryBaseMs: number): number {
  return Math.min(MAX_BACKOFF_MS, retryBaseMs * 2 ** (attempt - 1));
}

const RETRIED_STATUSES = new Set([408, 425, 429]);

function retried(status: number): boolean {
  return status >= 500 || RETRIED_STATUSES.has(status);
}

/** A fetch failure as a short code: the cause's errno code, or `timeout`; never the URL. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timeout';
    if (error.name === 'AbortError') return 'stopped';
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause && typeof cause === 'object') {
      const code = (cause as { code?: unknown }).code;
      if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
      if (cause instanceof Error && cause.name === 'TimeoutError') return 'timeout';
    }
    return error.name === 'TypeError' ? 'connection failed' : error.name;
  }
  return 'failed';
}

/** Retry-After in seconds (the date form is ignored), as ms. */
function retryAfterMs(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value || !/^\d{1,6}$/.test(value.trim())) return null;
  return Number(value.trim()) * 1000;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function deliver(
  url: string,
  body: unknown,
  options: DeliveryOptions,
  hooks: { signal?: AbortSignal; onAttemptFailed?: (failure: AttemptFailure) => void } = {},
): Promise<DeliveryResult> {
  const text = JSON.stringify(body);
  let status = 0;
  let error = 'not sent';
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    if (hooks.signal?.aborted)
      return { ok: false, attempts: attempt - 1, status, error: 'stopped' };
    let retryable = true;
    let askedWait: number | null = null;
    try {
      const signals = [AbortSignal.timeout(options.timeoutMs)];
      if (hooks.signal) signals.push(hooks.signal);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'oxmq-console' },
        body: text,
        // A redirect is an answer of its own (3xx): never follow a webhook elsewhere.
        redirect: 'manual',
        signal: AbortSignal.any(signals),
      });
      status = response.status;
      // The answer's body is not read: drop it so the connection is freed.
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return { ok: true, attempts: attempt, status };
      error = `HTTP ${response.status}`;
      retryable = retried(response.status);
      if (response.status === 429) askedWait = retryAfterMs(response);
    } catch (caught) {
      status = 0;
      error = describeFailure(caught);
      if (error === 'stopped') return { ok: false, attempts: attempt, status, error };
    }
    const last = attempt === options.maxAttempts || !retryable;
    const retryInMs = last
      ? null
      : Math.min(MAX_BACKOFF_MS, Math.max(backoffMs(attempt, options.retryBaseMs), askedWait ?? 0));
    hooks.onAttemptFailed?.({ attempt, error, retryInMs });
    if (retryInMs === null) return { ok: false, attempts: attempt, status, error };
    await wait(retryInMs, hooks.signal);
  }
  return { ok: false, attempts: options.maxAttempts, status, error };
}
