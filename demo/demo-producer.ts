/**
 * The demo producer: upserts the digest scheduler, sets tenant-sync's group default and runs
 * every feed on its own timer until stopped. Safe to restart: the scheduler has a fixed id
 * (upsert replaces, never duplicates) and the group default is a plain setting. A feed skips its turn while its queues' backlog is over BACKLOG_CAP,
 * so a demo left running without workers does not fill Redis.
 */
import type { Logger } from 'pino';
import { FlowProducer, Queue, ValidationError, type RedisClient } from 'oxmq';
import { BACKLOG_CAP, FEEDS, type Feed, type FeedContext } from './feeds';
import {
  DEMO_QUEUES,
  DIGEST_EVERY_MS,
  DIGEST_SCHEDULER_ID,
  TENANT_GROUP_CONCURRENCY,
  type DemoQueueName,
} from './queues';
import { scaled } from './timing';

export interface DemoProducerOptions {
  /** Shared by every queue of the demo; the caller opens and quits it. */
  connection: RedisClient;
  prefix: string;
  /** Wrap each queue's name in a hash tag, as the runner's workers do (OXMQ_CLUSTER_HASH_TAGS). */
  clusterHashTags?: boolean;
  logger: Logger;
  /** How often the added-jobs summary is logged (ms, real time). */
  summaryEveryMs?: number;
}

export interface DemoProducer {
  /** Stops every timer, waits for adds in flight, closes the queues. */
  stop(): Promise<void>;
}

const SETUP_RETRY_MS = 2000;
const BACKLOG_STATES = ['waiting', 'prioritized', 'delayed', 'waiting-children'] as const;

/** Starts at once; what needs Redis (the scheduler upsert, each feed's turn) retries until it works. */
export function startDemoProducer(options: DemoProducerOptions): DemoProducer {
  const { connection, prefix, clusterHashTags = false, logger } = options;
  const queues = Object.fromEntries(
    Object.values(DEMO_QUEUES).map((name) => {
      const queue = new Queue(name, { connection, prefix, clusterHashTags });
      queue.on('error', (err: unknown) => logger.warn({ queue: name, err }, 'queue error'));
      return [name, queue];
    }),
  ) as Record<DemoQueueName, Queue>;
  const flows = new FlowProducer({ connection, prefix });
  flows.on('error', (err: unknown) => logger.warn({ err }, 'flow producer error'));
  const context: FeedContext = { queues, flows };

  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const added: Record<string, number> = {};
  const held = new Set<string>();
  /** Feeds whose jobs the engine refused as invalid: retrying would not help. */
  const stoppedFeeds = new Set<string>();
  /** Ends pending pause()s when stop() comes. */
  const wakers = new Set<() => void>();
  let stopped = false;

  /** Waits `ms`, or less if stop() comes first. */
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        timers.delete(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timers.add(timer);
      wakers.add(done);
    });
  }

  /**
   * Upserts the digest scheduler and sets tenant-sync's group default, retrying while Redis is
   * away (the feeds do the same). Both are idempotent, so a restart changes nothing.
   */
  async function prepareQueues(): Promise<void> {
    while (!stopped) {
      try {
        await queues[DEMO_QUEUES.tenantSync].setGroupDefaults({
          concurrency: TENANT_GROUP_CONCURRENCY,
        });
        await queues.digest.upsertJobScheduler(
          DIGEST_SCHEDULER_ID,
          { every: scaled(DIGEST_EVERY_MS) },
          { name: 'daily digest', data: { audience: 'ops-team' } },
        );
        logger.info(
          { queue: DEMO_QUEUES.digest, schedulerId: DIGEST_SCHEDULER_ID },
          'digest scheduler upserted',
        );
        return;
      } catch (err) {
        if (stopped) return;
        logger.warn({ queue: DEMO_QUEUES.digest, err }, 'upserting the digest scheduler failed');
        await pause(SETUP_RETRY_MS);
      }
    }
  }

  async function backlogFull(feed: Feed): Promise<DemoQueueName | undefined> {
    for (const name of feed.guards) {
      const counts = await queues[name].getJobCounts(...BACKLOG_STATES);
      const backlog = Object.values(counts).reduce((sum, n) => sum + n, 0);
      if (backlog >= BACKLOG_CAP) return name;
    }
    return undefined;
  }

  async function runFeed(feed: Feed): Promise<void> {
    try {
      const full = await backlogFull(feed);
      if (full) {
        // Warn once per episode, not every tick.
        if (!held.has(feed.name)) {
          logger.warn(
            { queue: full, feed: feed.name, cap: BACKLOG_CAP },
            'backlog over the cap: not adding until workers catch up (is the worker running?)',
          );
          held.add(feed.name);
        }
        return;
      }
      if (held.delete(feed.name)) logger.info({ feed: feed.name }, 'backlog drained: adding again');
      const count = await feed.add(context);
      added[feed.name] = (added[feed.name] ?? 0) + count;
      logger.debug({ feed: feed.name, count }, 'jobs added');
    } catch (err) {
      if (err instanceof ValidationError) {
        // A refusal of the settings (e.g. a flow across queues with a hash tag each, on a
        // Cluster), not of the moment: every turn would fail alike, so stop this feed.
        stoppedFeeds.add(feed.name);
        logger.error({ feed: feed.name, err }, 'demo feed stopped: its jobs are refused');
        return;
      }
      // Redis away or a closing queue: log and keep the timer going; the next turn retries.
      if (!stopped) logger.warn({ feed: feed.name, err }, 'adding demo jobs failed');
    }
  }

  function schedule(feed: Feed, delay: number): void {
    if (stopped || stoppedFeeds.has(feed.name)) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = runFeed(feed).finally(() => inFlight.delete(run));
      inFlight.add(run);
      // The next turn is timed from the end of this one, so slow adds never pile up.
      void run.then(() => schedule(feed, feed.realTime ? feed.everyMs : scaled(feed.everyMs)));
    }, delay);
    timers.add(timer);
  }

  const setup = prepareQueues();
  inFlight.add(setup);
  void setup.finally(() => inFlight.delete(setup));
  for (const feed of FEEDS) schedule(feed, 0);

  const summary = setInterval(() => {
    logger.info({ added: { ...added } }, 'demo jobs added since start');
  }, options.summaryEveryMs ?? 30_000);

  logger.info(
    { prefix, queues: Object.values(DEMO_QUEUES), feeds: FEEDS.map((feed) => feed.name) },
    'demo producer started',
  );

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(summary);
      for (const wake of [...wakers]) wake();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
      await Promise.allSettled([...Object.values(queues).map((q) => q.close()), flows.close()]);
      logger.info({ added: { ...added } }, 'demo producer stopped');
    },
  };
}
