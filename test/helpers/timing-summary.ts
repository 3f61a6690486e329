/**
 * Checks a timing summary of the history (docs/metrics.md, "Timing history") against the
 * durations the jobs themselves record: the count, and p50/p95/p99 within one bucket.
 */
import type { TimingSummary } from 'oxmq/admin';
import { bucketOf } from 'oxmq/internals';
import { expect } from 'vitest';

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export function expectWithinOneBucket(
  summary: TimingSummary | null,
  values: number[],
  what = 'timing',
): void {
  expect(summary?.count, `${what}: count`).toBe(values.length);
  for (const [q, key] of [
    [0.5, 'p50Ms'],
    [0.95, 'p95Ms'],
    [0.99, 'p99Ms'],
  ] as const) {
    const read = summary![key];
    const actual = quantile(values, q);
    expect(
      Math.abs(bucketOf(read) - bucketOf(actual)),
      `${what} ${key}: read ${read} ms, the jobs say ${actual} ms`,
    ).toBeLessThanOrEqual(1);
  }
}
