/**
 * Sandbox children's lives: a child killed from outside fails its job, close() and close(true)
 * leave no child behind, a child whose parent dies goes too, and a child dying while idle is
 * reported. Child processes only: these are about pids.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue, SandboxCrashError, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function fixture(file: string): string {
  return fileURLToPath(new URL(`../helpers/sandbox-processors/${file}`, import.meta.url));
}

/** Alive and not a zombie (an orphan's zombie may linger where nobody reaps it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pid a hangs.ts job published as its progress. */
async function pidOf(name: string, jobId: string): Promise<number> {
  const redis = track(rawClient());
  const progress = await waitFor(() => redis.hget(`bull:${name}:${jobId}`, 'progress'), 15_000);
  return (JSON.parse(progress!) as { pid: number }).pid;
}

describe('sandbox children', () => {
  it('a child killed with SIGKILL fails its job with the signal, and the next job runs', async () => {
    const name = uniqueQueueName('sb-sigkill');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const doomed = await queue.add('doomed', {});
    const next = await queue.add('next', { ms: 0 });
    track(new Worker(name, fixture('hangs.ts'), { connection: redisOptions() }));

    const pid = await pidOf(name, doomed.id);
    expect(pid).not.toBe(process.pid);
    process.kill(pid, 'SIGKILL');

    await waitFor(async () => (await redis.zscore(`bull:${name}:failed`, doomed.id)) !== null);
    expect(await redis.hget(`bull:${name}:${doomed.id}`, 'failedReason')).toBe(
      'Unexpected exit code: null signal: SIGKILL',
    );
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, next.id)) !== null);
    const result = JSON.parse((await redis.hget(`bull:${name}:${next.id}`, 'returnvalue'))!);
    expect(result.pid).not.toBe(pid);
  });

  it('close() waits for running sandboxed jobs, then leaves no child alive', async () => {
    const name = uniqueQueueName('sb-close');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const quick = await queue.add('quick', { ms: 0 });
    const worker = track(
      new Worker(name, fixture('hangs.ts'), { connection: redisOptions(), concurrency: 2 }),
    );
    // One child becomes idle after the quick job; the other is busy when close() is called.
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, quick.id)) !== null);
    const idlePid = (
      JSON.parse((await redis.hget(`bull:${name}:${quick.id}`, 'returnvalue'))!) as {
        pid: number;
      }
    ).pid;
    const slow = await queue.add('slow', { ms: 800 });
    const busyPid = await pidOf(name, slow.id);

    await worker.close();
    expect(await redis.zscore(`bull:${name}:completed`, slow.id)).not.toBeNull();
    expect(isAlive(idlePid)).toBe(false);
    expect(isAlive(busyPid)).toBe(false);
  });

  it('close(true) kills busy children at once; the job stays active as with in-process jobs', async () => {
    const name = uniqueQueueName('sb-force');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('stuck', {});
    const worker = new Worker(name, fixture('hangs.ts'), { connection: redisOptions() });
    const failed: string[] = [];
    worker.on('failed', (failedJob: Job) => failed.push(failedJob.id));
    const pid = await pidOf(name, job.id);

    const started = Date.now();
    await worker.close(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(isAlive(pid)).toBe(false);
    expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([job.id]);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBeNull();
    expect(failed).toEqual([]);
  });

  it('a child that dies while idle is reported as an error, and replaced for the next job', async () => {
    const name = uniqueQueueName('sb-idle');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const first = await queue.add('first', { ms: 0 });
    const worker = track(new Worker(name, fixture('hangs.ts'), { connection: redisOptions() }));
    const errors: Error[] = [];
    worker.on('error', (error: Error) => errors.push(error));
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, first.id)) !== null);
    const pid = (
      JSON.parse((await redis.hget(`bull:${name}:${first.id}`, 'returnvalue'))!) as {
        pid: number;
      }
    ).pid;

    process.kill(pid, 'SIGKILL');
    await waitFor(() => errors.length > 0);
    expect(errors[0]).toBeInstanceOf(SandboxCrashError);
    expect(errors[0]!.message).toBe(
      `Sandboxed processor child ${pid} died while idle (signal SIGKILL)`,
    );
    const second = await queue.add('second', { ms: 0 });
    await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, second.id)) !== null);
    const secondPid = JSON.parse((await redis.hget(`bull:${name}:${second.id}`, 'returnvalue'))!)
      .pid as number;
    expect(secondPid).not.toBe(pid);
  });

  describe('when the parent process dies', () => {
    let parentPid: number | undefined;
    afterEach(() => {
      if (parentPid !== undefined && isAlive(parentPid)) process.kill(parentPid, 'SIGKILL');
      parentPid = undefined;
    });

    it('its children exit too (even after SIGKILL of the parent)', async () => {
      const name = uniqueQueueName('sb-orphan');
      const queue = track(new Queue(name, { connection: redisOptions() }));
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      const parent = spawn(
        process.execPath,
        [
          '--import',
          tsx,
          fixture('parent-worker.entry.ts'),
          JSON.stringify({ port: redisOptions().port, queueName: name }),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      parentPid = parent.pid;
      let output = '';
      parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await waitFor(() => output.includes('"ready"'), 15_000);

      const job = await queue.add('hang', {});
      const childPid = await pidOf(name, job.id);
      expect(isAlive(childPid)).toBe(true);
      const parentGone = new Promise((resolve) => parent.once('exit', resolve));
      parent.kill('SIGKILL');
      await parentGone;
      await waitFor(() => !isAlive(childPid), 5_000);
    });
  });
});
