/**
 * The real runner process on SIGTERM and SIGINT: it stops fetching, lets running jobs finish
 * within OXMQ_SHUTDOWN_TIMEOUT_MS, gives the rest back to wait at the deadline (or at once on
 * a second signal, not on a copy of the first arriving with it), and exits 0 leaving no active
 * or stalled job behind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, waitFor } from '../helpers/redis';
import { fixture, useRunners, type RunnerProcess } from '../helpers/runner-process';
import { STOP_SIGNAL_SPACING_MS } from '../../runner/stop-signals';

const track = useCleanup();
const startRunner = useRunners();
const redis = rawClient();

afterAll(() => redis.quit());

function slowQueue(runner: RunnerProcess): Queue {
  return track(new Queue('slow', { connection: redisOptions(), prefix: runner.prefix }));
}

async function activeCount(queue: Queue): Promise<number> {
  return (await queue.getJobCounts('active')).active ?? 0;
}

/** Nothing the runner held may stay active, locked or marked for the stalled check. */
async function expectNothingHeld(runner: RunnerProcess): Promise<void> {
  const key = (suffix: string) => `${runner.prefix}:slow:${suffix}`;
  expect(await redis.llen(key('active'))).toBe(0);
  expect(await redis.scard(key('stalled'))).toBe(0);
  expect(await redis.keys(`${runner.prefix}:slow:*:lock`)).toEqual([]);
}

describe('worker runner: shutdown', () => {
  it('on SIGTERM lets running jobs finish, takes no new one, and exits 0', async () => {
    const runner = startRunner({
      modules: { 'slow.ts': fixture('slow.ts') },
      env: { OXMQ_SHUTDOWN_TIMEOUT_MS: '20000' },
    });
    await runner.ready();
    const queue = slowQueue(runner);
    const running = await queue.add('nap', { ms: 1_500 });
    await waitFor(async () => ((await activeCount(queue)) === 1 ? true : null), 10_000);

    runner.signal('SIGTERM');
    await runner.waitForLog((line) => line.msg === 'shutting down');
    const late = await queue.add('late', { ms: 10 });
    expect(await runner.exited).toBe(0);

    expect(await queue.getJobState(running.id)).toBe('completed');
    expect(await queue.getJobState(late.id)).toBe('waiting');
    await expectNothingHeld(runner);
    expect(runner.logs).toContainEqual(
      expect.objectContaining({ msg: 'worker closed', completedInTime: 1, returnedToWait: [] }),
    );
    expect(await runner.get('/livez').catch(() => 'closed')).toBe('closed');
  });

  it('at the deadline returns jobs still running to wait, without counting an attempt', async () => {
    const runner = startRunner({
      modules: { 'slow.ts': fixture('slow.ts') },
      env: { OXMQ_SHUTDOWN_TIMEOUT_MS: '500' },
    });
    await runner.ready();
    const queue = slowQueue(runner);
    const long = await queue.add('long', { ms: 60_000 });
    await waitFor(async () => ((await activeCount(queue)) === 1 ? true : null), 10_000);

    runner.signal('SIGTERM');
    expect(await runner.exited).toBe(0);
    expect(await queue.getJobState(long.id)).toBe('waiting');
    const job = await queue.getJob(long.id);
    expect(job?.attemptsMade).toBe(0);
    await expectNothingHeld(runner);
    expect(runner.logs).toContainEqual(
      expect.objectContaining({ msg: 'worker closed', returnedToWait: [long.id] }),
    );
  });

  it('a second signal returns running jobs at once instead of waiting out the timeout', async () => {
    const runner = startRunner({
      modules: { 'slow.ts': fixture('slow.ts') },
      env: { OXMQ_SHUTDOWN_TIMEOUT_MS: '60000' },
    });
    await runner.ready();
    const queue = slowQueue(runner);
    const long = await queue.add('long', { ms: 60_000 });
    await waitFor(async () => ((await activeCount(queue)) === 1 ? true : null), 10_000);

    runner.signal('SIGINT');
    await runner.waitForLog((line) => line.msg === 'shutting down');
    // A person's second Ctrl-C, not a copy of the first: what separates them is time itself.
    await sleep(STOP_SIGNAL_SPACING_MS);
    runner.signal('SIGINT');
    // Well inside the 60 s timeout: only the second signal can end the wait this soon.
    const exit = await Promise.race([
      runner.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000)),
    ]);
    expect(exit).toBe(0);
    expect(await queue.getJobState(long.id)).toBe('waiting');
    await expectNothingHeld(runner);
  });

  it('takes a Ctrl-C that reaches it twice at once (the terminal and npm) for one stop', async () => {
    const runner = startRunner({
      modules: { 'slow.ts': fixture('slow.ts') },
      env: { OXMQ_SHUTDOWN_TIMEOUT_MS: '60000' },
    });
    await runner.ready();
    const queue = slowQueue(runner);
    const running = await queue.add('nap', { ms: 2_000 });
    await waitFor(async () => ((await activeCount(queue)) === 1 ? true : null), 10_000);

    // What `npm run worker` in a terminal sees on one Ctrl-C: the signal to the process group,
    // and npm's forwarded copy milliseconds later, once the first has been taken (two sent at
    // once would merge into one pending signal in the kernel).
    runner.signal('SIGINT');
    await runner.waitForLog((line) => line.msg === 'shutting down');
    runner.signal('SIGINT');
    expect(await runner.exited).toBe(0);
    expect(await queue.getJobState(running.id)).toBe('completed');
    expect((await queue.getJob(running.id))?.attemptsStarted).toBe(1);
    await expectNothingHeld(runner);
    expect(runner.logs).toContainEqual(
      expect.objectContaining({ msg: 'worker closed', completedInTime: 1, returnedToWait: [] }),
    );
    expect(runner.logs).not.toContainEqual(
      expect.objectContaining({ msg: 'second stop request: returning running jobs to wait now' }),
    );
    // The copy did arrive, and was taken for what it is.
    expect(runner.logs).toContainEqual(
      expect.objectContaining({ msg: 'signal right after the last one: the same stop request' }),
    );
  });
});
