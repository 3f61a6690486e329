/**
 * Every default of the engine, in one place. Values match bullmq 6.7.0 where the option exists
 * there, so a queue behaves the same whichever library runs a worker.
 */
export const DEFAULTS = {
  prefix: 'bull',
  maxLenEvents: 10_000,
  worker: {
    concurrency: 1,
    lockDuration: 30_000,
    stalledInterval: 30_000,
    maxStalledCount: 1,
    /** Seconds a worker blocks on the marker when nothing is delayed. */
    drainDelay: 5,
    maximumRateLimitDelay: 30_000,
    /** Longest single block on the marker, in seconds (re-checks delayed jobs at least this often). */
    maxBlockSeconds: 10,
    /** Extra time the watchdog grants a blocking call before declaring the connection lost. */
    blockWatchdogGraceMs: 1_000,
    /**
     * How often an idle worker fetches although no marker woke it (ms). Every add, retry,
     * promotion and freed concurrency slot writes a marker, so this is a safety net, not the way
     * work is found: an idle worker costs a blocking call per drainDelay and a fetch this often.
     */
    idleRecheckMs: 30_000,
    /** Most jobs one fetch takes when several slots are free (one slot each). */
    maxFetchBatch: 100,
    /** How often a worker publishes its heartbeat and reads commands left for it (ms). */
    heartbeatInterval: 5_000,
    /** How often a worker writes the timing history it gathered (ms). */
    timingHistoryFlush: 5_000,
    /** Pause before retrying after a Redis error in the fetch loop. */
    runRetryDelay: 1_000,
  },
  queueEvents: {
    blockingTimeout: 10_000,
  },
  /** Caps on what a failure may write into the job hash. */
  failure: {
    maxFailedReasonBytes: 8 * 1024,
    maxStacktraceBytes: 8 * 1024,
  },
  /**
   * Per-call budget of operations over many jobs (clean, drain, obliterate, retryJobs,
   * promoteJobs ...), and the most any one of their script calls takes on, whatever count a
   * caller asks for. bullmq uses 1000; a script call that removes or moves 1000 jobs runs for
   * about 10 ms inside Redis, blocking every other client that long (docs/reliability.md, Large
   * backlogs), so OxMQ takes a quarter of that per call and loops.
   */
  chunkSize: 250,
  maxPriority: 2_097_151,
} as const;

/** Bounds of one FlowProducer.add: the whole tree goes in one atomic script call. */
export const FLOW_LIMITS = {
  /** Most nodes in one flow (one add or one addBulk). */
  maxNodes: 10_000,
  /** Most levels below the root. */
  maxDepth: 100,
} as const;
