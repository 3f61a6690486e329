/**
 * The streamed search, the export and the quick-jump lookup through the real console: a search
 * over a bullmq-made queue streams the newest match first with progress and an `end` line, an
 * export writes every job (redacted, CSV-safe) or just the matching ones and marks a file cut by
 * its cap, a job id is found in every queue that holds it; bad input is refused with 422.
 */
import { Queue as BullQueue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiError, JobLocation, SearchStreamLine } from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('search-stream');
const other = uniqueQueueName('search-other');
const base = `/api/queues/bull/${name}`;
const TOTAL = 2_600;
let producer: BullQueue;
let otherProducer: BullQueue;
let viewer: ConsoleClient;
let ids: string[];

beforeAll(async () => {
  producer = new BullQueue(name, { connection: redisOptions() });
  otherProducer = new BullQueue(other, { connection: redisOptions() });
  const jobs = await producer.addBulk(
    Array.from({ length: TOTAL }, (_, i) => ({
      name: i % 2 === 0 ? 'even' : 'odd',
      opts: { jobId: `job-${i}` },
      data: {
        n: i,
        user: i === 3 || i === TOTAL - 1 ? `needle-${i}` : `user-${i}`,
        password: `secret-${i}`,
        note: i === 0 ? '=HYPERLINK("http://evil")' : 'plain, with "quotes"',
      },
    })),
  );
  ids = jobs.map((job) => job.id!);
  await otherProducer.add('elsewhere', {}, { jobId: ids[5] });
  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  for (const queue of [producer, otherProducer]) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

async function lines(path: string): Promise<SearchStreamLine[]> {
  const response = await viewer.get(path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/x-ndjson');
  const text = await response.text();
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SearchStreamLine);
}

describe('streamed search', () => {
  it('streams matches newest first, progress, and an end line over the whole state', async () => {
    const got = await lines(`${base}/search/stream?mode=text&q=needle&state=waiting`);
    const matches = got.flatMap((line) => (line.type === 'matches' ? line.jobs : []));
    expect(matches.map((row) => row.id)).toEqual([ids[TOTAL - 1], ids[3]]);
    // The newest match is in the first window, before the walk has looked at everything.
    const firstMatch = got.findIndex((line) => line.type === 'matches');
    const progressAfter = got.slice(firstMatch).find((line) => line.type === 'progress');
    expect(progressAfter).toMatchObject({ type: 'progress', found: 1 });
    expect(progressAfter && 'scanned' in progressAfter && progressAfter.scanned).toBeLessThan(
      TOTAL,
    );
    expect(got.at(-1)).toEqual({
      type: 'end',
      scanned: TOTAL,
      total: TOTAL,
      found: 2,
      tooLarge: 0,
      stoppedBy: null,
    });
  });

  it('walks oldest first when asked, and never matches a redacted value', async () => {
    const oldest = await lines(
      `${base}/search/stream?mode=text&q=needle&state=waiting&order=oldest`,
    );
    const found = oldest.flatMap((line) =>
      line.type === 'matches' ? line.jobs.map((j) => j.id) : [],
    );
    expect(found).toEqual([ids[3], ids[TOTAL - 1]]);
    const secret = await lines(`${base}/search/stream?mode=text&q=secret-3&state=waiting`);
    expect(secret.at(-1)).toMatchObject({ type: 'end', found: 0, scanned: TOTAL });
  });

  it('refuses bad input with a clear 422 and no stream', async () => {
    for (const query of [
      'mode=text&q=',
      'mode=path&q=x',
      'mode=text&q=x&order=sideways',
      'mode=id&q=1',
    ]) {
      const response = await viewer.get(`${base}/search/stream?${query}`);
      expect(response.status, query).toBe(422);
      expect(((await response.json()) as ApiError).code).toBe('INVALID_INPUT');
    }
  });
});

describe('export', () => {
  it('writes every job of the list as redacted JSON lines, in the order asked', async () => {
    const response = await viewer.get(`${base}/export?state=waiting&order=oldest`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename=".+-waiting-.+\.jsonl"$/,
    );
    const records = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; data: { password: string } });
    expect(records).toHaveLength(TOTAL);
    expect(records.map((record) => record.id)).toEqual(ids);
    expect(records[0]).toMatchObject({ state: 'waiting', data: { password: '[redacted]' } });
  });

  it('writes the matching jobs as CSV and marks a file cut by its limit', async () => {
    const csv = await (
      await viewer.get(`${base}/export?state=waiting&format=csv&mode=name&q=even&limit=1000`)
    ).text();
    const rows = csv.split('\r\n').filter((row) => row !== '');
    expect(rows[0]).toBe(
      'id,name,state,timestamp,processedOn,finishedOn,attemptsMade,delay,progress,failedReason,data,returnvalue',
    );
    expect(rows).toHaveLength(1 + 1000 + 1);
    expect(rows.at(-1)).toBe('# truncated: rows cap reached after 1000 rows');
    expect(csv).not.toContain('secret-');
    const oldestFirst = await (
      await viewer.get(`${base}/export?state=waiting&format=csv&mode=text&q=HYPERLINK&order=oldest`)
    ).text();
    // Quotes inside a cell are doubled (RFC 4180).
    expect(oldestFirst).toContain(`"{""n"":0,`);
    expect(oldestFirst.split('\r\n')[1]).toMatch(new RegExp(`^${ids[0]},even,waiting,`));
  });

  it('says nothing is cut when the walk ends at its limit exactly', async () => {
    const text = await (
      await viewer.get(`${base}/export?state=waiting&mode=text&q=needle&limit=2`)
    ).text();
    expect(text.trim().split('\n')).toHaveLength(2);
  });
});

describe('quick jump', () => {
  it('finds a job id in every discovered queue that holds it', async () => {
    const response = await viewer.get(`/api/jobs/find?id=${encodeURIComponent(ids[5]!)}`);
    expect(response.status).toBe(200);
    const { locations } = (await response.json()) as { locations: JobLocation[] };
    expect(locations.map((hit) => hit.queue).sort()).toEqual([name, other].sort());
    expect(locations.find((hit) => hit.queue === name)).toMatchObject({
      jobName: 'odd',
      state: 'waiting',
    });
    const none = (await (await viewer.get('/api/jobs/find?id=no-such-job-anywhere')).json()) as {
      locations: JobLocation[];
    };
    expect(none.locations).toEqual([]);
    expect((await viewer.get('/api/jobs/find?id=a:b')).status).toBe(422);
  });
});
