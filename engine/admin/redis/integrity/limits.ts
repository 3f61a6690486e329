/** Bounds of the integrity checker's Redis calls (docs/integrity.md). */
export const INTEGRITY_LIMITS = {
  /** Ids read per LRANGE / ZRANGE window, keys asked per SCAN step, members per SSCAN step. */
  window: 500,
  /** LPOS looks at most this many entries from each end, so a lookup never walks a long list. */
  listLookup: 1000,
  /**
   * Entries of long lists one key-scan step may page through (LRANGE windows of `listLookup`) to
   * place the job hashes the bounded lookups could not; past it they count as unverified.
   */
  listPage: 200_000,
  /** Default work (ids and keys examined) of one call. */
  budget: 10_000,
  /** Events stream entries tolerated over `opts.maxLenEvents`: trimming is approximate. */
  eventsSlackMin: 1000,
  eventsSlackRatio: 0.1,
} as const;
