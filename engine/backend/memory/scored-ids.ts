/**
 * A set of ids ordered by a numeric score, ties broken by id: the order a Redis sorted set
 * keeps, which bullmq's listings of delayed, prioritized, finished and waiting-children jobs
 * follow. Kept as a sorted array plus a map, so `has` and `score` are O(1) and the order is
 * always at hand for ranges.
 */
export class ScoredIds {
  private readonly scores = new Map<string, number>();
  private readonly order: string[] = [];

  get size(): number {
    return this.order.length;
  }

  has(id: string): boolean {
    return this.scores.has(id);
  }

  score(id: string): number | undefined {
    return this.scores.get(id);
  }

  /** Adds `id` or moves it to `score`. */
  set(id: string, score: number): void {
    if (this.scores.has(id)) this.delete(id);
    this.scores.set(id, score);
    this.order.splice(this.positionOf(score, id), 0, id);
  }

  /** True when `id` was there. */
  delete(id: string): boolean {
    const score = this.scores.get(id);
    if (score === undefined) return false;
    this.scores.delete(id);
    this.order.splice(this.positionOf(score, id), 1);
    return true;
  }

  clear(): void {
    this.scores.clear();
    this.order.length = 0;
  }

  /** The lowest-scored id, if any. */
  first(): string | undefined {
    return this.order[0];
  }

  /** Ids from lowest to highest score (a copy). */
  ids(): string[] {
    return [...this.order];
  }

  /** Ids with score <= max, lowest first, at most `limit`. */
  upTo(max: number, limit = Infinity): string[] {
    const found: string[] = [];
    for (const id of this.order) {
      if (found.length >= limit || this.scores.get(id)! > max) break;
      found.push(id);
    }
    return found;
  }

  /** How many ids score in [min, max]. */
  countBetween(min: number, max: number): number {
    let count = 0;
    for (const id of this.order) {
      const score = this.scores.get(id)!;
      if (score > max) break;
      if (score >= min) count++;
    }
    return count;
  }

  /** The highest score in [min, max], if any. */
  maxScoreBetween(min: number, max: number): number | undefined {
    let found: number | undefined;
    for (let at = this.positionOf(min, ''); at < this.order.length; at++) {
      const score = this.scores.get(this.order[at]!)!;
      if (score > max) break;
      found = score;
    }
    return found;
  }

  /** Index where (score, id) sits or would go: the first entry not ordered before it. */
  private positionOf(score: number, id: string): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const other = this.order[mid]!;
      const otherScore = this.scores.get(other)!;
      if (otherScore < score || (otherScore === score && other < id)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** The slice [start, end] of `items` with Redis's index rules (negatives count from the end). */
export function indexRange<T>(items: readonly T[], start: number, end: number): T[] {
  const length = items.length;
  const from = start < 0 ? Math.max(0, length + start) : start;
  const to = end < 0 ? length + end : Math.min(end, length - 1);
  if (from > to || from >= length) return [];
  return items.slice(from, to + 1);
}
