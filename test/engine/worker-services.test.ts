/**
 * The lifecycle of a worker's background services (engine/worker/worker-services.ts): started in
 * order, stopped in reverse, every one of them on close, and a service that fails to start
 * stops the ones started before it. Services here are real timers that count their ticks.
 */
import { describe, expect, it } from 'vitest';
import { WorkerServiceStartError } from 'oxmq';
import { WorkerServices, type WorkerService } from 'oxmq/internals';
import { sleep } from '../helpers/redis';

/** A service that ticks every 5 ms while started; `log` records starts and stops in order. */
function ticking(name: string, log: string[], failStart?: Error, failStop?: Error) {
  let timer: NodeJS.Timeout | undefined;
  const state = { ticks: 0 };
  const service: WorkerService = {
    name,
    start: async () => {
      if (failStart) throw failStart;
      log.push(`start ${name}`);
      timer = setInterval(() => (state.ticks += 1), 5);
    },
    stop: async () => {
      log.push(`stop ${name}`);
      clearInterval(timer);
      timer = undefined;
      if (failStop) throw failStop;
    },
  };
  return { service, state, running: () => timer !== undefined };
}

describe('worker services', () => {
  it('starts in registration order and stops every service in reverse, once', async () => {
    const log: string[] = [];
    const services = new WorkerServices(() => undefined);
    const all = ['a', 'b', 'c'].map((name) => ticking(name, log));
    for (const { service } of all) services.add(service);
    await services.startAll();
    await sleep(30);
    expect(all.every(({ state }) => state.ticks > 0)).toBe(true);

    const first = services.stopAll();
    expect(services.stopAll()).toBe(first);
    await first;
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
    const ticks = all.map(({ state }) => state.ticks);
    await sleep(30);
    expect(all.map(({ state }) => state.ticks)).toEqual(ticks);
    // Stopped for good: a later start does nothing.
    await services.startAll();
    expect(all.some(({ running }) => running())).toBe(false);
  });

  it('a service that fails to start stops the ones started before it and names itself', async () => {
    const log: string[] = [];
    const services = new WorkerServices(() => undefined);
    const a = ticking('a', log);
    const broken = ticking('broken', log, new Error('port taken'));
    const c = ticking('c', log);
    for (const { service } of [a, broken, c]) services.add(service);

    const failure = await services.startAll().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkerServiceStartError);
    expect(failure).toMatchObject({ service: 'broken', code: 'WORKER_SERVICE_START' });
    expect((failure as Error).message).toContain('port taken');
    expect(log).toEqual(['start a', 'stop broken', 'stop a']);
    expect(a.running()).toBe(false);
    expect(c.running()).toBe(false);
    expect(services.isStarted('a')).toBe(false);
  });

  it('a stop that throws is reported and the others still stop', async () => {
    const log: string[] = [];
    const reported: unknown[] = [];
    const services = new WorkerServices((error) => reported.push(error));
    const a = ticking('a', log);
    const b = ticking('b', log, undefined, new Error('stuck'));
    services.add(a.service);
    services.add(b.service);
    await services.startAll();
    await services.stopAll();
    expect(log).toEqual(['start a', 'start b', 'stop b', 'stop a']);
    expect(reported).toEqual([new Error('stuck')]);
    expect(a.running()).toBe(false);
  });

  it('start(name) starts one service; stopAll stops services never started too', async () => {
    const log: string[] = [];
    const services = new WorkerServices(() => undefined);
    const a = ticking('a', log);
    const b = ticking('b', log);
    services.add(a.service);
    services.add(b.service);
    await services.start('b');
    expect(services.isStarted('b')).toBe(true);
    expect(services.isStarted('a')).toBe(false);
    await services.startAll();
    await services.stopAll();
    expect(log).toEqual(['start b', 'start a', 'stop b', 'stop a']);
  });
});
