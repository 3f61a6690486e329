/**
 * The runner names each worker after its processor module when the module names none: the name
 * is in the worker's Redis client name (queue.getWorkers(), CLIENT LIST), its heartbeat record
 * and each job's `processedBy`, so every console says which module runs.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { listWorkerHeartbeats } from 'oxmq/admin';
import { moduleWorkerName } from '../../runner/worker-name';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import { fixture, useRunners } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

const NAMED_MODULE = `
export const queue = 'named';
export const options = { name: 'billing-v2' };
export default async function named(job) { return job.data; }
`;

describe('worker runner: worker names', () => {
  it('a module without a name gives its file name; a module name option wins', async () => {
    const runner = startRunner({
      modules: { 'send-email.ts': fixture('alpha.ts'), 'named.mjs': NAMED_MODULE },
    });
    await runner.ready();
    const redis = track(rawClient());
    const alpha = track(new Queue('alpha', { connection: redisOptions(), prefix: runner.prefix }));
    const named = track(new Queue('named', { connection: redisOptions(), prefix: runner.prefix }));

    expect((await alpha.getWorkers()).map((worker) => worker.workerName)).toEqual(['send-email']);
    expect((await named.getWorkers()).map((worker) => worker.workerName)).toEqual(['billing-v2']);
    const beats = await waitFor(async () => {
      const { workers } = await listWorkerHeartbeats(redis, runner.prefix, 'alpha');
      return workers.length === 1 ? workers : undefined;
    });
    expect(beats![0]!.workerName).toBe('send-email');

    const job = await alpha.add('echo', { text: 'hi' });
    const processed = await waitFor(async () => (await alpha.getJob(job.id))?.processedBy);
    expect(processed).toBe('send-email');
  });

  it('takes the base name without its last extension', () => {
    expect(moduleWorkerName('/srv/processors/send-email.ts')).toBe('send-email');
    expect(moduleWorkerName('reports.daily.mjs')).toBe('reports.daily');
    expect(moduleWorkerName('/x/.hidden')).toBe('.hidden');
  });
});
