/**
 * The real runner process (`node --import tsx runner/main.ts`) serving processor modules from a
 * folder, and its health endpoints.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { listeningAddresses } from '../helpers/listening-sockets';
import { redisOptions, waitFor } from '../helpers/redis';
import { fixture, useRunners, type RunnerProcess } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

function queueOf(runner: RunnerProcess, name: string): Queue {
  return track(new Queue(name, { connection: redisOptions(), prefix: runner.prefix }));
}

/** Waits until the job is completed and returns its return value. */
async function completedValue(queue: Queue, id: string): Promise<unknown> {
  return waitFor(async () => {
    const job = await queue.getJob(id);
    return job?.finishedOn && job.failedReason === undefined ? { value: job.returnvalue } : null;
  }, 15_000).then((done) => done?.value);
}

describe('worker runner: processing', () => {
  it('serves every module of the folder: jobs of two queues get processed', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts'), 'beta.ts': fixture('beta.ts') },
    });
    await runner.ready();
    const alpha = queueOf(runner, 'alpha');
    const beta = queueOf(runner, 'beta');
    const a = await alpha.add('echo', { text: 'hello' });
    const b = await beta.add('double', { n: 21 });

    expect(await completedValue(alpha, a.id)).toEqual({
      queue: 'alpha',
      echoed: 'hello',
      pid: runner.pid,
    });
    expect(await completedValue(beta, b.id)).toEqual({ queue: 'beta', doubled: 42 });
    for (const queue of ['alpha', 'beta'])
      expect(runner.logs).toContainEqual(
        expect.objectContaining({
          level: 'info',
          component: 'runner',
          msg: 'worker running',
          queue,
        }),
      );
  });

  it('answers /livez, /readyz and /health, and logs JSON lines with level, time and component', async () => {
    // WORKER_HEALTH_HOST unset: loopback only.
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts'), 'beta.ts': fixture('beta.ts') },
    });
    const port = await runner.ready();
    expect(port).toBeGreaterThan(0);
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);

    expect(await runner.get('/livez')).toEqual({ status: 200, body: { status: 'live' } });
    expect(await runner.get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    const health = await runner.get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ready',
      ready: true,
      shuttingDown: false,
      processors: [
        {
          // Relative to the processors folder: /health does not reveal the machine's paths.
          file: 'alpha.ts',
          queue: 'alpha',
          prefix: runner.prefix,
          concurrency: 1,
          sandbox: false,
          state: 'running',
        },
        {
          file: 'beta.ts',
          queue: 'beta',
          prefix: runner.prefix,
          concurrency: 2,
          sandbox: false,
          state: 'running',
        },
      ],
      failed: [],
    });
    expect((await runner.get('/nope')).status).toBe(404);

    const ready = await runner.waitForLog((line) => line.msg === 'runner ready');
    expect(ready).toMatchObject({
      level: 'info',
      component: 'runner',
      processors: 2,
      failed: 0,
      healthPort: port,
    });
    expect(new Date(ready.time).toISOString()).toBe(ready.time);
  });

  it('with no module at all, warns and stays up serving health', async () => {
    const runner = startRunner();
    await runner.ready();
    expect(runner.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'no processor modules to run: serving health only',
      }),
    );
    expect(await runner.get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await runner.get('/health')).toMatchObject({
      status: 200,
      body: { processors: [], failed: [] },
    });
    expect(runner.running()).toBe(true);
  });

  it('is not ready while Redis does not answer, but is live', async () => {
    // Port 1 refuses connections: the workers never start and readiness must say so.
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
    });
    const listening = await runner.waitForLog((line) => line.msg === 'health server listening');
    const port = listening.healthPort as number;
    const get = async (pathname: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${pathname}`);
      return { status: response.status, body: await response.json() };
    };
    expect(await get('/livez')).toEqual({ status: 200, body: { status: 'live' } });
    expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'starting' } });
    // Health answers while the modules still load: wait until the module is listed.
    const health = await waitFor(async () => {
      const { body } = await get('/health');
      return (body as { processors: unknown[] }).processors.length > 0 ? body : null;
    });
    expect(health).toMatchObject({
      ready: false,
      processors: [{ queue: 'alpha', state: 'starting' }],
    });
    expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'starting' } });
    expect(runner.logs.some((line) => line.msg === 'runner ready')).toBe(false);
  });
});
