/**
 * The backlog history's sampler (engine/admin/redis/backlog-sampler.ts): two sampler processes on
 * one Redis (two consoles, or a console and a runner) sample each turn exactly once between them;
 * when the holder of the lease is killed with SIGKILL, the other takes over without a turn skipped
 * or repeated, and the samples read back as the backlog of the history.
 */
import { Queue } from 'oxmq';
import { getQueueHistory } from 'oxmq/admin';
import { afterAll, expect, inject, test } from 'vitest';
import { spawnBundledChild, type BundledChild } from '../helpers/bundled-child';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const redis = rawClient();
const children: BundledChild[] = [];
afterAll(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await redis.quit();
});

/** Turns of 3 s: the lease (1 s) runs out well inside a turn even on a slow machine. */
const INTERVAL_MS = 3_000;

function samples() {
  return children
    .flatMap((child) => child.messages)
    .filter((m) => m.event === 'sampled')
    .map((m) => ({ holder: String(m.holder), turn: Number(m.turn) }));
}

test('two samplers: each turn sampled once, and a SIGKILLed holder is taken over without a gap', async () => {
  const prefix = uniqueQueueName('sampled');
  const name = uniqueQueueName('backlog');
  const queue = track(new Queue(name, { connection: redisOptions(), prefix }));
  await queue.addBulk([1, 2, 3].map((i) => ({ name: 'job', data: { i } })));
  await queue.add('later', {}, { delay: 3_600_000 });

  for (const holder of ['a', 'b']) {
    const child = await spawnBundledChild('sampler-child.entry.ts', `sampler-${holder}`, {
      port: inject('redisPort'),
      prefix,
      intervalMs: INTERVAL_MS,
      holder,
    });
    children.push(child);
    await child.waitForMessage((m) => m.event === 'ready');
  }
  await waitFor(() => samples().length >= 1, 10_000);
  const [first] = samples();
  const holderIndex = first!.holder === 'a' ? 0 : 1;
  const victim = children[holderIndex]!;
  const survivor = children[1 - holderIndex]!;
  // Killed right after it sampled a turn: the survivor must sample the next one.
  const killedAfter = await victim.waitForMessage(
    (m) => m.event === 'sampled' && Number(m.turn) > first!.turn,
    10_000,
  );
  victim.process.kill('SIGKILL');
  await victim.exited;
  await survivor.waitForMessage(
    (m) => m.event === 'sampled' && Number(m.turn) === Number(killedAfter.turn) + 2,
    15_000,
  );

  const turns = samples().map((s) => s.turn);
  const from = Math.min(...turns);
  const to = Math.max(...turns);
  expect(
    turns.sort((x, y) => x - y),
    'every turn once, none skipped',
  ).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
  const after = samples().filter((s) => s.turn > Number(killedAfter.turn));
  expect(new Set(after.map((s) => s.holder)), 'the survivor samples after the kill').toEqual(
    new Set([first!.holder === 'a' ? 'b' : 'a']),
  );

  const history = await getQueueHistory(redis, { prefix, name }, { range: '1h' });
  const sampled = history.points.filter((point) => point.backlog);
  expect(sampled.length).toBeGreaterThan(0);
  expect(sampled.at(-1)!.backlog).toMatchObject({ waiting: 3, delayed: 1, active: 0 });
});
