/**
 * The audit streams' retention (engine/admin/redis/audit.ts): by count on every write, by age at
 * most once a minute per stream, and the throttle's `suppressed` count kept with an entry.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appendAudit, readAudit, type AuditRecord } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient } from '../helpers/redis';

const track = useCleanup();
const DAY = 24 * 60 * 60 * 1000;
const record = (action: string): AuditRecord => ({
  actor: 'ann',
  role: 'operator',
  action,
  target: 'bull:q',
  params: {},
  outcome: 'ok',
  status: 200,
});

describe('audit retention', () => {
  it('trims entries older than the retention, and only once a minute per stream', async () => {
    const redis = track(rawClient());
    const key = `test:audit:${randomUUID()}`;
    const now = Date.now();
    // Two entries written "40 days ago" (explicit ids), then one now with a 30-day retention.
    await redis.xadd(key, `${now - 40 * DAY}-0`, 'action', 'old-1');
    await redis.xadd(key, `${now - 40 * DAY}-1`, 'action', 'old-2');
    await appendAudit(redis, record('fresh'), { key, retentionMs: 30 * DAY, now });
    expect((await readAudit(redis, { key })).entries.map((e) => e.action)).toEqual(['fresh']);

    // Age trimming runs at most once a minute per stream.
    const other = `test:audit:${randomUUID()}`;
    await redis.xadd(other, `${now - 20 * DAY}-0`, 'action', 'twenty-days-old');
    await appendAudit(redis, record('a'), { key: other, retentionMs: 30 * DAY, now });
    await appendAudit(redis, record('b'), { key: other, retentionMs: 10 * DAY, now: now + 1_000 });
    expect(await redis.xlen(other)).toBe(3);
    await appendAudit(redis, record('c'), { key: other, retentionMs: 10 * DAY, now: now + 61_000 });
    const left = (await readAudit(redis, { key: other })).entries.map((e) => e.action);
    expect(left).toEqual(['c', 'b', 'a']);
  });

  it('caps the count on every write and keeps the suppressed count of an entry', async () => {
    const redis = track(rawClient());
    const key = `test:audit:${randomUUID()}`;
    for (let i = 0; i < 300; i += 1) {
      await appendAudit(redis, record(`a${i}`), { key, maxLen: 100 });
    }
    // MAXLEN ~ trims whole nodes: near the cap, never the full 300.
    expect(await redis.xlen(key)).toBeLessThan(250);
    await appendAudit(redis, { ...record('refused'), outcome: 'denied', suppressed: 7 }, { key });
    const [newest] = (await readAudit(redis, { key, count: 1 })).entries;
    expect(newest).toMatchObject({ action: 'refused', outcome: 'denied', suppressed: 7 });
  });
});
