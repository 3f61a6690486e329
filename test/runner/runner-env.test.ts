/**
 * What processor code can read of the environment (docs/security.md, "What a processor process
 * receives"): a runner started with the console's secrets in its environment (a team starting it
 * from the same shell or unit file as the console) hands none of them to its processors, in the
 * runner's process, in child processes or in worker threads; the team's own variables arrive.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, waitFor } from '../helpers/redis';
import { fixture, useRunners } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

const CONSOLE_SECRETS = {
  NEXTAUTH_SECRET: 'console-session-signing-secret',
  NEXTAUTH_URL: 'http://localhost:3000',
  AUTH_SECRET: 'console-session-signing-secret',
  OXMQ_USERS: '[{"username":"ops","passwordHash":"x","role":"admin"}]',
  OXMQ_METRICS_TOKEN: 'console-metrics-token-0123456789',
  OXMQ_ADMIN_USER: 'admin',
  OXMQ_ADMIN_PASSWORD: 'console-admin-password',
};

interface Reported {
  names: string[];
  myService?: string;
}

describe('worker runner: what processors receive of the environment', () => {
  it('withholds the console variables from inline, process and thread processors, keeps the team ones', async () => {
    const runner = startRunner({
      modules: {
        'env-inline.ts': fixture('env-inline.ts'),
        'env-process.ts': fixture('env-process.ts'),
        'env-thread.ts': fixture('env-thread.ts'),
      },
      env: { ...CONSOLE_SECRETS, MY_SERVICE_URL: 'https://service.internal', TZ: 'UTC' },
    });
    await runner.ready();
    for (const name of ['env-inline', 'env-process', 'env-thread']) {
      const queue = track(new Queue(name, { connection: redisOptions(), prefix: runner.prefix }));
      const { id } = await queue.add('report', {});
      const reported = (await waitFor(async () => {
        const job = await queue.getJob(id);
        if (job?.failedReason) throw new Error(`${name}: ${job.failedReason}`);
        return job?.finishedOn ? (job.returnvalue as Reported) : null;
      }, 15_000))!;
      for (const secret of Object.keys(CONSOLE_SECRETS))
        expect(reported.names, `${name} reads ${secret}`).not.toContain(secret);
      expect(reported.names, name).toEqual(
        expect.arrayContaining(['MY_SERVICE_URL', 'TZ', 'PATH', 'REDIS_URL']),
      );
      expect(reported.myService, name).toBe('https://service.internal');
    }
    // The log names what was removed, never a value.
    const line = await runner.waitForLog((entry) =>
      entry.msg.includes('console variables removed'),
    );
    expect(line.variables).toEqual(Object.keys(CONSOLE_SECRETS).sort());
    expect(JSON.stringify(runner.logs)).not.toContain('console-session-signing-secret');
  });
});
