/**
 * The real runner process keeps secrets out of what it shows: its stdout (which the launcher
 * passes on) and /health carry a job's failure reason and a module's load error redacted, as
 * the console shows them (engine/redaction/).
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, waitFor } from '../helpers/redis';
import { useRunners } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

const THROWS = `
export const queue = 'logins';
export default async function login() {
  throw new Error('login failed password=hunter2');
}
`;

const FAILS_TO_LOAD = `
throw new Error('cannot reach redis://:s3cret@cache:6379 (token=abc123)');
`;

describe('worker runner: redaction', () => {
  it('logs a job failure reason and a load error redacted, and lists the load error redacted', async () => {
    const runner = startRunner({
      modules: { 'login.ts': THROWS, 'broken.ts': FAILS_TO_LOAD },
    });
    await runner.ready();
    const queue = track(new Queue('logins', { connection: redisOptions(), prefix: runner.prefix }));
    const job = await queue.add('login', { user: 'ursula' });

    const failedLine = await runner.waitForLog(
      (line) => line.msg === 'job failed' && line.jobId === job.id,
    );
    expect(failedLine.reason).toBe('login failed password=[redacted]');
    // The job itself keeps its reason as thrown: only what the runner shows is redacted.
    const stored = await waitFor(async () => (await queue.getJob(job.id))?.failedReason ?? null);
    expect(stored).toBe('login failed password=hunter2');

    const loadLine = await runner.waitForLog(
      (line) => line.msg === 'processor module failed to load',
    );
    expect(String(loadLine.reason)).toContain('redis://:[redacted]@cache:6379 (token=[redacted])');

    const health = await runner.get('/health');
    const failed = health.body.failed as { file: string; error: string }[];
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toContain('redis://:[redacted]@cache:6379 (token=[redacted])');

    const everything = JSON.stringify(runner.logs) + runner.stderr() + JSON.stringify(health);
    expect(everything).not.toMatch(/hunter2|s3cret|abc123/);
  });
});
