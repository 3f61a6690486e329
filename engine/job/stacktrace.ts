import { DEFAULTS } from '../defaults';

/**
 * The stack traces a job keeps across attempts (the `stacktrace` hash field, a JSON array,
 * newest last). bullmq keeps `stackTraceLimit` of them; OxMQ also bounds the field to 8 KB so a
 * job failing with huge traces cannot grow without end. When that cap drops earlier traces, the
 * first entry says how many were dropped, so a reader knows the history is incomplete.
 */

const DROPPED_MARKER = /^\[oxmq\] (\d+) earlier stack traces? dropped/;

function droppedMarker(count: number): string {
  return `[oxmq] ${count} earlier stack trace${count === 1 ? '' : 's'} dropped (stored traces are capped at ${DEFAULTS.failure.maxStacktraceBytes} bytes)`;
}

/** How many traces an existing marker says were dropped (0 without one). */
function droppedTraceCount(traces: readonly string[]): number {
  const match = traces[0] === undefined ? null : DROPPED_MARKER.exec(traces[0]);
  return match ? Number(match[1]) : 0;
}

/**
 * Appends this attempt's trace: at most `limit` entries (bullmq's stackTraceLimit), and at most
 * 8 KB in all (oldest entries dropped first and counted in a marker entry, then the newest cut).
 */
export function appendStacktrace(
  existing: string[],
  stack: string | undefined,
  limit?: number,
): string[] {
  let dropped = droppedTraceCount(existing);
  let traces = dropped > 0 ? existing.slice(1) : [...existing];
  if (stack) traces.push(stack);
  if (limit !== undefined) traces = limit === 0 ? [] : traces.slice(-limit);
  const budget = DEFAULTS.failure.maxStacktraceBytes;
  const stored = () => (dropped > 0 ? [droppedMarker(dropped), ...traces] : traces);
  const size = () => Buffer.byteLength(JSON.stringify(stored()));
  while (traces.length > 1 && size() > budget) {
    traces.shift();
    dropped += 1;
  }
  // JSON escaping (newlines, quotes) makes the stored text longer than the trace itself, so
  // shrink the raw budget until the encoded array fits.
  while (traces.length === 1 && size() > budget) {
    const trace = traces[0]!;
    const target = Buffer.byteLength(trace) - (size() - budget) - 16;
    traces = [truncateUtf8(trace, Math.max(target, 0))];
    if (target <= 0) break;
  }
  return stored();
}

const TRUNCATION_MARKER = '…[truncated by oxmq]';

export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const room = maxBytes - Buffer.byteLength(TRUNCATION_MARKER);
  let cut = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
  // A multi-byte character split at the edge decodes to U+FFFD: drop it.
  cut = cut.replace(/\uFFFD$/, '');
  return cut + TRUNCATION_MARKER;
}

/** Bounds a failure reason to what a job hash should hold, with a visible marker when cut. */
export function capFailedReason(reason: string): string {
  return truncateUtf8(reason, DEFAULTS.failure.maxFailedReasonBytes);
}
