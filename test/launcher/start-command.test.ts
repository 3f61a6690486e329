/**
 * The README's start command on a fresh copy of the repository, as a newcomer runs it: `npm ci`,
 * then `npm start` with no REDIS_URL and no console credentials. It must build the console,
 * start its own Redis, the console and the worker runner; a job added through the console's API
 * is processed by the team's processor module; SIGTERM lets a running job finish, leaves nothing
 * active and stops the embedded Redis; a second start on the same data finds every job, and
 * `npm start -- --demo` feeds the demo queues. A Ctrl-C in the terminal (SIGINT to npm's whole
 * process group, which npm also forwards to the launcher) lets running jobs finish; only a second
 * Ctrl-C, later, returns them to wait.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import type { JobActionResponse, JobDetailResponse } from '../../lib/api-types';
import { signIn, type ConsoleClient } from '../console/console-client';
import { copyRepository, npmCi, npmStart, type LaunchedSystem } from '../helpers/launched-system';
import { listeningAddresses } from '../helpers/listening-sockets';
import { redisOptions, redisUrl, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { freePort } from '../setup/redis-server';
import { STOP_SIGNAL_SPACING_MS } from '../../runner/stop-signals';

const GREET_MODULE = `
import type { Job } from 'oxmq';
export const queue = 'greet';
export default async function greet(job: Job<{ who: string }>) {
  await job.log('greeting ' + job.data.who);
  return { greeting: 'hello ' + job.data.who };
}
`;

const SLOW_MODULE = `
import type { Job } from 'oxmq';
export const queue = 'slow';
export default async function slow(job: Job<{ ms: number }>) {
  await new Promise((resolve) => setTimeout(resolve, job.data.ms));
  return { slept: job.data.ms };
}
`;

/** Sleeps `ms`, writing one line per run to `runsFile`: a job run twice shows up twice. */
const countedNapModule = (queue: string, runsFile: string) => `
import { appendFileSync } from 'node:fs';
import type { Job } from 'oxmq';
export const queue = '${queue}';
export const options = { concurrency: 3 };
export default async function nap(job: Job<{ ms: number }>) {
  appendFileSync(${JSON.stringify(runsFile)}, job.id + '\\n');
  await new Promise((resolve) => setTimeout(resolve, job.data.ms));
  return { slept: job.data.ms };
}
`;

/** Reports which variables processor code can read, in the runner's process or a sandbox. */
const envModule = (queue: string, sandbox: string) => `
export const queue = '${queue}';
export const options = { sandbox: ${sandbox} };
export default async function variables() {
  return { names: Object.keys(process.env).sort(), myService: process.env.MY_SERVICE_URL };
}
`;

/** The console's secrets, set in the environment \`npm start\` runs in. */
const CONSOLE_SECRETS = {
  NEXTAUTH_SECRET: 'launcher-test-session-secret-0123',
  OXMQ_ADMIN_USER: 'ops',
  OXMQ_ADMIN_PASSWORD: 'launcher-test-admin-password',
  OXMQ_METRICS_TOKEN: 'launcher-test-metrics-token-0123',
  OXMQ_USERS: JSON.stringify([
    { username: 'viewer', passwordHash: '$2b$10$' + 'a'.repeat(53), role: 'viewer' },
  ]),
};

/** The variable names a running process of ours started with (Linux: /proc/<pid>/environ). */
function startEnvOf(script: string): string[] {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(script)) continue;
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      return environ.filter(Boolean).map((entry) => entry.slice(0, entry.indexOf('=')));
    } catch {
      // Gone meanwhile, or not ours.
    }
  }
  throw new Error(`no process runs ${script}`);
}

/** Build, Redis, console and runner on two cores: generous, and only a bound on a hang. */
const UP_TIMEOUT_MS = 240_000;

let dir: string;
let env: Record<string, string>;
const started: LaunchedSystem[] = [];

beforeAll(() => {
  dir = copyRepository();
  npmCi(dir);
  writeFileSync(path.join(dir, 'processors', 'greet.ts'), GREET_MODULE);
  writeFileSync(path.join(dir, 'processors', 'slow.ts'), SLOW_MODULE);
}, 400_000);

afterAll(async () => {
  for (const system of started) {
    if (system.running()) {
      system.signal('SIGKILL');
      await system.exited;
    }
  }
  // A launcher killed above leaves its Redis running: stop it through its pid file.
  const pidFile = path.join(dir, '.oxmq', 'redis', 'redis.pid');
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[] = [], extraEnv: Record<string, string> = {}) {
  const system = npmStart(dir, { ...env, ...extraEnv }, args);
  started.push(system);
  await system.waitForLine(/OxMQ is up: console /, UP_TIMEOUT_MS);
  // The last line of the same message: every line of it has been read.
  await system.waitForLine(/stop with Ctrl-C/, 10_000);
  return system;
}

function generatedAdmin(): { username: string; password: string } {
  const stored = JSON.parse(
    readFileSync(path.join(dir, '.oxmq', 'console-credentials.json'), 'utf8'),
  ) as { adminUser: string; adminPassword: string };
  return { username: stored.adminUser, password: stored.adminPassword };
}

async function jobOf(client: ConsoleClient, queue: string, id: string) {
  const response = await client.get(`/api/queues/bull/${queue}/jobs/${encodeURIComponent(id)}`);
  return response.status === 200 ? ((await response.json()) as JobDetailResponse) : undefined;
}

async function addJob(client: ConsoleClient, queue: string, name: string, data: unknown) {
  const response = await client.post(`/api/queues/bull/${queue}/jobs`, { name, data });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as JobActionResponse).id!;
}

function redisPid(): number {
  return Number(readFileSync(path.join(dir, '.oxmq', 'redis', 'redis.pid'), 'utf8').trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start on a fresh clone', () => {
  let greetId: string;
  let slowId: string;
  let firstRunStoppedAt: number;

  it('brings everything up; a job added through the console is processed; SIGTERM drains and stops Redis', async () => {
    const [port, healthPort] = [await freePort(), await freePort()];
    env = { PORT: String(port), WORKER_HEALTH_PORT: String(healthPort) };
    const system = await start();
    const output = system.output();
    expect(output).toContain('building the console');
    expect(output).toMatch(/embedded redis-server [\d.]+ on redis:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(path.join(dir, '.oxmq', 'redis', 'appendonlydir'))).toBe(true);
    // Loopback only by default, and the generated password shown once, by the start that made it.
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(healthPort)).toEqual(['127.0.0.1']);
    expect(output).toContain(`with password "${generatedAdmin().password}"`);

    const baseUrl = `http://localhost:${port}`;
    expect((await fetch(`${baseUrl}/api/health`)).status).toBe(200);
    const readyz = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect(readyz.status).toBe(200);
    const health = (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as {
      processors: { queue: string; state: string }[];
    };
    expect(health.processors.map((entry) => [entry.queue, entry.state]).sort()).toEqual([
      ['greet', 'running'],
      ['slow', 'running'],
    ]);

    const client = await signIn(baseUrl, generatedAdmin());
    greetId = await addJob(client, 'greet', 'hello', { who: 'newcomer' });
    const greeted = await waitFor(async () => {
      const job = await jobOf(client, 'greet', greetId);
      return job?.state === 'completed' ? job : null;
    }, 30_000);
    expect(greeted?.returnvalue).toEqual({ greeting: 'hello newcomer' });

    // A job still running when SIGTERM comes must finish, not be left active or stalled.
    slowId = await addJob(client, 'slow', 'nap', { ms: 3_000 });
    await waitFor(
      async () => ((await jobOf(client, 'slow', slowId))?.state === 'active' ? 1 : null),
      30_000,
    );
    const pid = redisPid();
    expect(alive(pid)).toBe(true);

    system.signal('SIGTERM');
    expect(await system.exited).toBe(0);
    firstRunStoppedAt = Date.now();
    expect(system.output()).toMatch(/"queue":"slow".*"completedInTime":1,"returnedToWait":\[\]/);
    expect(system.output()).toContain('embedded Redis stopped');
    expect(alive(pid)).toBe(false);
  }, 600_000);

  it('a second start on the same data dir finds the earlier jobs, none left active; --demo feeds the tour', async () => {
    expect(firstRunStoppedAt).toBeGreaterThan(0);
    const system = await start(['--demo'], { OXMQ_DEMO_SPEED: '5' });
    expect(system.output()).not.toContain('building the console');
    expect(system.output()).toContain('console build is current');
    expect(system.output()).not.toContain(generatedAdmin().password);
    expect(system.output()).toContain('with the generated password kept in');
    const client = await signIn(`http://localhost:${env.PORT}`, generatedAdmin());

    const greeted = await jobOf(client, 'greet', greetId);
    expect(greeted).toMatchObject({
      state: 'completed',
      returnvalue: { greeting: 'hello newcomer' },
    });
    const slept = await jobOf(client, 'slow', slowId);
    expect(slept).toMatchObject({
      state: 'completed',
      returnvalue: { slept: 3_000 },
      stalledCounter: 0,
    });
    // Finished during the first run's shutdown, not recovered and rerun by the second run.
    expect(slept!.finishedOn).toBeLessThan(firstRunStoppedAt);
    expect(slept!.attemptsStarted).toBe(1);

    const emails = await waitFor(async () => {
      const response = await client.get('/api/queues/bull/emails');
      if (response.status !== 200) return null;
      const body = (await response.json()) as { counts: Record<string, number> };
      return (body.counts.completed ?? 0) > 0 ? body.counts : null;
    }, 60_000);
    expect(emails?.completed).toBeGreaterThan(0);

    system.signal('SIGINT');
    expect(await system.exited).toBe(0);
  }, 600_000);

  it("hands the runner, the demo and their processors none of the console's secrets, but the team's variables", async () => {
    const processors = path.join(dir, 'env-processors');
    mkdirSync(processors, { recursive: true });
    writeFileSync(path.join(processors, 'env-inline.ts'), envModule('env-inline', 'false'));
    writeFileSync(path.join(processors, 'env-process.ts'), envModule('env-process', "'process'"));
    writeFileSync(path.join(processors, 'env-thread.ts'), envModule('env-thread', "'thread'"));
    const system = await start(['--demo'], {
      ...CONSOLE_SECRETS,
      OXMQ_PROCESSORS_DIR: processors,
      MY_SERVICE_URL: 'https://service.internal',
    });
    const secrets = Object.keys(CONSOLE_SECRETS);
    for (const script of [
      path.join(dir, 'runner', 'main.ts'),
      path.join(dir, 'demo', 'producer.ts'),
    ]) {
      const names = startEnvOf(script);
      for (const secret of secrets)
        expect(names, `${script} starts with ${secret}`).not.toContain(secret);
      expect(names, script).toContain('MY_SERVICE_URL');
    }

    const client = await signIn(`http://localhost:${env.PORT}`, {
      username: CONSOLE_SECRETS.OXMQ_ADMIN_USER,
      password: CONSOLE_SECRETS.OXMQ_ADMIN_PASSWORD,
    });
    for (const queue of ['env-inline', 'env-process', 'env-thread']) {
      const id = await addJob(client, queue, 'report', {});
      const job = await waitFor(async () => {
        const found = await jobOf(client, queue, id);
        return found?.state === 'completed' || found?.state === 'failed' ? found : null;
      }, 30_000);
      expect(job?.state, queue).toBe('completed');
      const reported = job!.returnvalue as { names: string[]; myService?: string };
      for (const secret of secrets)
        expect(reported.names, `${queue} reads ${secret}`).not.toContain(secret);
      expect(reported.myService, queue).toBe('https://service.internal');
    }

    system.signal('SIGTERM');
    expect(await system.exited).toBe(0);
  }, 600_000);
});

describe('Ctrl-C in the terminal running npm start', () => {
  let system: LaunchedSystem | undefined;
  let queue: Queue;
  let runsFile: string;
  let startEnv: Record<string, string>;

  beforeAll(async () => {
    // The suite's Redis (not an embedded one): the jobs can be read after the launcher exits.
    const name = uniqueQueueName('ctrl-c');
    const prefix = uniqueQueueName('launched');
    const processors = path.join(dir, 'ctrl-c-processors');
    runsFile = path.join(dir, 'ctrl-c-runs.txt');
    mkdirSync(processors, { recursive: true });
    writeFileSync(path.join(processors, 'nap.ts'), countedNapModule(name, runsFile));
    queue = new Queue(name, { connection: redisOptions(), prefix });
    startEnv = {
      PORT: String(await freePort()),
      WORKER_HEALTH_PORT: String(await freePort()),
      REDIS_URL: redisUrl(),
      OXMQ_PREFIX: prefix,
      OXMQ_PROCESSORS_DIR: processors,
      // Far beyond the test's waits: only the jobs' end or a second Ctrl-C can stop the runner.
      OXMQ_SHUTDOWN_TIMEOUT_MS: '120000',
    };
  });

  afterEach(async () => {
    if (system?.running()) {
      // A failed test's system: stop it, returning its jobs, so nothing outlives the file.
      system.signalGroup('SIGTERM');
      await sleep(STOP_SIGNAL_SPACING_MS);
      system.signalGroup('SIGTERM');
      await system.exited;
    }
    system = undefined;
    // Each test starts from an empty queue: jobs a test leaves in wait would run in the next.
    await queue.obliterate({ force: true });
    writeFileSync(runsFile, '');
  }, 60_000);

  afterAll(() => queue.close());

  async function startInOwnGroup(): Promise<LaunchedSystem> {
    system = npmStart(dir, startEnv, [], { ownProcessGroup: true });
    started.push(system);
    await system.waitForLine(/OxMQ is up: console /, UP_TIMEOUT_MS);
    return system;
  }

  async function addRunning(count: number, ms: number): Promise<string[]> {
    const jobs = await queue.addBulk(
      Array.from({ length: count }, (_, i) => ({ name: `nap-${i}`, data: { ms } })),
    );
    const ids = jobs.map((job) => job.id!);
    await waitFor(async () => ((await queue.getJobCounts('active')).active === count ? 1 : null));
    return ids;
  }

  function runsOf(id: string): number {
    return readFileSync(runsFile, 'utf8')
      .split('\n')
      .filter((line) => line === id).length;
  }

  it('lets running jobs finish, each run once, though the launcher receives the Ctrl-C twice', async () => {
    const launched = await startInOwnGroup();
    const ids = await addRunning(3, 4_000);

    launched.signalGroup('SIGINT');
    expect(await launched.exited).toBe(0);
    const output = launched.output();
    expect(output).toMatch(/"completedInTime":3,"returnedToWait":\[\]/);
    expect(output).not.toContain('returning running jobs to wait now');
    for (const id of ids) {
      const job = await queue.getJob(id);
      expect(await job?.getState(), id).toBe('completed');
      expect(job?.returnvalue, id).toEqual({ slept: 4_000 });
      expect(job?.attemptsStarted, id).toBe(1);
      expect(runsOf(id), id).toBe(1);
    }
  }, 600_000);

  it('returns running jobs to wait at once on a second Ctrl-C after the first', async () => {
    const launched = await startInOwnGroup();
    const ids = await addRunning(2, 600_000);

    launched.signalGroup('SIGINT');
    await launched.waitForLine(/"msg":"shutting down"/, 30_000);
    // A person's second Ctrl-C: later than copies of the first (npm's) can arrive.
    await sleep(STOP_SIGNAL_SPACING_MS);
    launched.signalGroup('SIGINT');
    // Well inside the 120 s shutdown timeout: only the second Ctrl-C can end it this soon.
    const exit = await Promise.race([launched.exited, sleep(60_000).then(() => 'still running')]);
    expect(exit).toBe(0);
    expect(launched.output()).toContain('returning running jobs to wait now');
    for (const id of ids) {
      const job = await queue.getJob(id);
      expect(await job?.getState(), id).toBe('waiting');
      expect(job?.attemptsMade, id).toBe(0);
      expect(runsOf(id), id).toBe(1);
    }
  }, 600_000);
});
