/**
 * The fixed duration buckets of the timing history (docs/metrics.md, "Timing history"). Fixed, so
 * the counts of many workers and many minutes add up bucket by bucket, and a percentile read
 * from the sum is as good as one read from any single worker. Six bounds per decade (1, 1.5, 2,
 * 3, 5, 7 times a power of ten) from 1 ms to 70,000,000 ms (19.4 h), then one open bucket: a
 * bucket is at most twice as wide as its lower bound, so a percentile read back is off by less
 * than one bucket.
 */

const STEPS = [1, 1.5, 2, 3, 5, 7];
const DECADES = 8;

/** Upper bounds (ms, inclusive) of every bucket but the last, which is open-ended. */
export const TIMING_BUCKET_BOUNDS_MS: readonly number[] = Array.from(
  { length: DECADES * STEPS.length },
  (_, i) => STEPS[i % STEPS.length]! * 10 ** Math.floor(i / STEPS.length),
);

/** The bucket of a duration: the first whose bound is at least `ms` (negative counts as 0). */
export function bucketOf(ms: number): number {
  const bounds = TIMING_BUCKET_BOUNDS_MS;
  let low = 0;
  let high = bounds.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (bounds[middle]! >= ms) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Counts per bucket, sparse: bucket index → count. */
export type BucketCounts = Map<number, number>;

export function addCounts(into: BucketCounts, from: ReadonlyMap<number, number>): void {
  for (const [bucket, count] of from) into.set(bucket, (into.get(bucket) ?? 0) + count);
}

export function totalOf(counts: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}

/**
 * The `q` quantile (0 < q ≤ 1) of the durations counted, in ms: the bucket holding that rank,
 * with the value placed linearly inside it (the open bucket answers its lower bound). Undefined
 * when nothing was counted.
 */
export function quantileOf(counts: ReadonlyMap<number, number>, q: number): number | undefined {
  const total = totalOf(counts);
  if (total === 0) return undefined;
  const rank = q * total;
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    const count = counts.get(bucket)!;
    if (seen + count >= rank) {
      const low = bucket === 0 ? 0 : TIMING_BUCKET_BOUNDS_MS[bucket - 1]!;
      const high = TIMING_BUCKET_BOUNDS_MS[bucket];
      if (high === undefined) return low;
      return low + ((high - low) * Math.max(0, rank - seen)) / count;
    }
    seen += count;
  }
  return TIMING_BUCKET_BOUNDS_MS.at(-1);
}
