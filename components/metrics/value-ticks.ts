/**
 * Y-axis ticks for job counts: evenly spaced, with a step a reader can add up at a glance (1, 2
 * or 5 times a power of ten) and the axis' top rounded up to a multiple of it. Left to itself,
 * recharts picks its own steps and a domain ending at the data's maximum, which gives ticks
 * such as 0, 30, 60, 120.
 */

export interface ValueTicks {
  ticks: number[];
  /** The axis' top: the last tick, at or above the largest value. */
  max: number;
}

/** The 1-2-5 steps, smallest first, from 1 (counts are whole numbers) upward. */
function* niceSteps(): Generator<number> {
  for (let power = 1; ; power *= 10) {
    yield power;
    yield 2 * power;
    yield 5 * power;
  }
}

/**
 * Ticks from 0 to at least `largest` with at most `maxIntervals` steps between them; a chart
 * with nothing in it still gets 0 and 1.
 */
export function valueTicks(largest: number, maxIntervals = 4): ValueTicks {
  const top = Number.isFinite(largest) ? Math.max(1, Math.ceil(largest)) : 1;
  let step = 1;
  for (step of niceSteps()) if (Math.ceil(top / step) <= maxIntervals) break;
  const max = Math.ceil(top / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= max; tick += step) ticks.push(tick);
  return { ticks, max };
}
