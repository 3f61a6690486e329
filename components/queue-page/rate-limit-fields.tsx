'use client';
/**
 * The two inputs of a rate limit ("Max jobs" per "per (ms)"), shared by the queue-wide and the
 * tenant group forms, and the rule both apply before sending: a rate limit is a pair, so half
 * of one is refused in words (as the API refuses it), never dropped.
 */

/** Why a rate limit cannot be sent as filled in; null when both fields are filled or both empty. */
export function rateLimitProblem(max: string, duration: string): string | null {
  if ((max === '') !== (duration === '')) {
    return 'A rate limit needs both "Max jobs" and "per (ms)": fill in the missing one, or clear both to keep the rate limit as it is.';
  }
  return null;
}

export function RateLimitFields({
  max,
  duration,
  onMax,
  onDuration,
}: {
  max: string;
  duration: string;
  onMax: (value: string) => void;
  onDuration: (value: string) => void;
}) {
  return (
    <>
      <label>
        Max jobs
        <input type="number" min={1} value={max} onChange={(e) => onMax(e.target.value)} />
      </label>
      <label>
        per (ms)
        <input
          type="number"
          min={1}
          value={duration}
          onChange={(e) => onDuration(e.target.value)}
        />
      </label>
    </>
  );
}
