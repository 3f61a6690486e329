/**
 * The console's Prometheus endpoint logic (GET /api/prometheus, docs/metrics.md): the bearer
 * token check and the shared, cached collection.
 *
 * Why a cache and single flight: a scrape reads every queue (one pipeline each), and several
 * Prometheus replicas scrape the same console. One collection serves every scrape for
 * OXMQ_METRICS_CACHE_MS, and scrapes that arrive while it runs wait for that same collection
 * instead of starting their own.
 */
import 'server-only';
import { createHash, timingSafeEqual } from 'node:crypto';
import { getEnv } from './env';
import { admin } from './oxmq';

/** The text format Prometheus asks for (its Accept header prefers it). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Whether an Authorization header carries `Bearer <token>`. Both sides are hashed first, so the
 * constant-time comparison also hides the token's length.
 */
export function isAuthorizedScrape(header: string | null, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

let cached: { text: string; at: number } | undefined;
let running: Promise<string> | undefined;

/** The exposition text, from the cache while it is fresh, else from one shared collection. */
export function prometheusText(): Promise<string> {
  const { OXMQ_METRICS_CACHE_MS: cacheMs, OXMQ_METRICS_MAX_QUEUES: maxQueues } = getEnv();
  if (cached && Date.now() - cached.at < cacheMs) return Promise.resolve(cached.text);
  running ??= collect(maxQueues).finally(() => {
    running = undefined;
  });
  return running;
}

async function collect(maxQueues: number): Promise<string> {
  const scrape = await admin().metrics.prometheus(maxQueues);
  if (scrape.failed.length > 0) {
    const names = scrape.failed.map(
      ({ queue, error }) => `${queue.prefix}:${queue.name} (${error})`,
    );
    console.error(
      `OxMQ console: metrics left out queues Redis refused to read: ${names.join(', ')}`,
    );
  }
  cached = { text: scrape.text, at: Date.now() };
  return scrape.text;
}
