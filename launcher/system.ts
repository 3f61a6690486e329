/**
 * The pieces `npm start` runs, started in dependency order and stopped in reverse: Redis (the
 * embedded one unless REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS is set), the console
 * (`next start`), the worker runner and, with --demo, the demo producer. Stopping: the producer
 * first (nothing new arrives), then the runner (it finishes or returns its running jobs, see
 * runner/runner.ts) together with the console, and Redis last, so no job is left active behind a Redis that went away.
 */
import path from 'node:path';
import { describeRedisTarget } from '../config/redis-connection';
import { spawnChild, type ManagedChild } from './child-process';
import { consoleProbeBase } from './console-address';
import { buildConsole, buildIsCurrent } from './console-build';
import { consoleEnvironment } from './console-env';
import {
  RedisNotInstalledError,
  redisServerVersion,
  startEmbeddedRedis,
  type EmbeddedRedis,
} from './embedded-redis';
import { freePort, portInUse } from './free-port';
import { redisCredentialsFile } from './redis-password';
import { STOP_SIGNAL_SPACING_MS } from '../runner/stop-signals';
import { teamCodeEnv } from './team-code-env';
import type { LauncherLog } from './log';
import type { LauncherSettings } from './settings';
import { upMessage } from './up-message';
import { waitForHttp } from './wait-for-http';

export class LauncherStartError extends Error {
  override readonly name = 'LauncherStartError';
}

/** The demo's processors, served next to the team's own when --demo is on. */
const DEMO_PROCESSORS_DIR = path.join('demo', 'processors');
const CONSOLE_START_TIMEOUT_MS = 60_000;
const RUNNER_START_TIMEOUT_MS = 60_000;
const CONSOLE_STOP_GRACE_MS = 10_000;
const DEMO_STOP_GRACE_MS = 10_000;
/** On top of the runner's own shutdown timeout: its last writes and exit. */
const RUNNER_STOP_SLACK_MS = 10_000;

export interface RunningSystem {
  readonly consoleUrl: string;
  /** Where Redis is, for messages (no password). */
  readonly redis: string;
  readonly workerHealthUrl?: string;
  /** Resolves with the label of the first essential child (console, runner) that exits unasked. */
  readonly childExited: Promise<string>;
}

export class System {
  private redis?: EmbeddedRedis;
  private console?: ManagedChild;
  private runner?: ManagedChild;
  private demo?: ManagedChild;
  private stopping?: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly settings: LauncherSettings,
    private readonly log: LauncherLog,
  ) {}

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  async start(): Promise<RunningSystem> {
    const { settings, log, root } = this;
    if (await portInUse(settings.port, settings.host)) {
      throw new LauncherStartError(
        `PORT ${settings.port} is already in use on ${settings.host} (another OxMQ console?); set PORT to a free port`,
      );
    }
    // Before the build: a newcomer without Redis or with a bad console setting learns it in a
    // second, not after a minute of building.
    if (!settings.redis && !redisServerVersion()) throw new RedisNotInstalledError();
    const consoleEnv = consoleEnvironment(settings);
    if (buildIsCurrent(root)) log.info('console build is current');
    else {
      log.info('building the console (first start, or its sources changed)');
      await buildConsole(root);
    }
    this.throwIfStopping();

    // The connection settings every child gets: those given (a server, a Sentinel group or a
    // Cluster), or the embedded server's URL.
    let redisEnv: Record<string, string>;
    let redis: string;
    if (settings.redis) {
      redisEnv = { ...settings.redisEnv };
      redis = describeRedisTarget(settings.redis);
      log.info(`using the Redis at ${redis}`);
    } else {
      this.redis = await startEmbeddedRedis({
        dir: path.join(settings.dataDir, 'redis'),
        passwordFile: redisCredentialsFile(settings.dataDir),
        log: (message) => log.info(message),
      });
      redisEnv = { REDIS_URL: this.redis.url };
      redis = describeRedisTarget({ kind: 'url', url: this.redis.url, tls: false });
    }
    const hashTags = { OXMQ_CLUSTER_HASH_TAGS: String(settings.clusterHashTags) };
    this.throwIfStopping();

    this.console = spawnChild(
      'console',
      process.execPath,
      [
        path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'),
        'start',
        '--hostname',
        settings.host,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...consoleEnv.env,
          ...redisEnv,
          PORT: String(settings.port),
          NODE_ENV: 'production',
          NEXT_TELEMETRY_DISABLED: '1',
        },
      },
    );
    const essentials: ManagedChild[] = [this.console];

    let workerHealthUrl: string | undefined;
    if (settings.worker) {
      const healthPort = settings.workerHealthPort || (await freePort());
      workerHealthUrl = `http://127.0.0.1:${healthPort}`;
      this.runner = spawnChild(
        'runner',
        process.execPath,
        ['--import', 'tsx', path.join(root, 'runner', 'main.ts')],
        {
          cwd: root,
          // Processor code runs in there: no console secret (team-code-env.ts).
          env: teamCodeEnv(process.env, {
            ...redisEnv,
            ...hashTags,
            OXMQ_PREFIX: settings.prefix,
            OXMQ_PROCESSORS_DIR: this.processorsDirs().join(','),
            WORKER_HEALTH_PORT: String(healthPort),
            OXMQ_SHUTDOWN_TIMEOUT_MS: String(settings.shutdownTimeoutMs),
            OXMQ_LOG_LEVEL: settings.logLevel,
          }),
          // The runner takes SIGTERMs close together for one request (runner/stop-signals.ts).
          stopSignalSpacingMs: STOP_SIGNAL_SPACING_MS,
        },
      );
      essentials.push(this.runner);
    } else log.info('worker runner off (OXMQ_WORKER=false or --no-worker)');

    await waitForHttp({
      url: `${consoleProbeBase(settings.host, settings.port)}/api/health`,
      child: this.console,
      timeoutMs: CONSOLE_START_TIMEOUT_MS,
    });
    if (this.runner && workerHealthUrl) {
      await waitForHttp({
        url: `${workerHealthUrl}/readyz`,
        child: this.runner,
        timeoutMs: RUNNER_START_TIMEOUT_MS,
      });
    }
    this.throwIfStopping();

    if (settings.demo) {
      this.demo = spawnChild(
        'demo',
        process.execPath,
        ['--import', 'tsx', path.join(root, 'demo', 'producer.ts')],
        {
          cwd: root,
          env: teamCodeEnv(process.env, {
            ...redisEnv,
            ...hashTags,
            OXMQ_PREFIX: settings.prefix,
            OXMQ_LOG_LEVEL: settings.logLevel,
          }),
        },
      );
      // The demo is a tour, not a part of the system: if it dies the rest keeps running.
      void this.demo.exited.then((code) => {
        if (!this.stopping) log.error(`the demo producer exited (${code}); the rest keeps running`);
      });
    }

    const childExited = Promise.race(
      essentials.map((child) => child.exited.then(() => child.label)),
    );
    log.info(
      upMessage({
        consoleUrl: consoleEnv.url,
        host: settings.host,
        generatedAdmin: consoleEnv.generatedAdmin,
        workerHealthUrl,
        demo: settings.demo,
      }),
    );
    return { consoleUrl: consoleEnv.url, redis, workerHealthUrl, childExited };
  }

  /** Safe to call at any point of start(), and more than once (a second call hurries the runner). */
  stop(): Promise<void> {
    if (this.stopping) {
      // A second Ctrl-C: the runner returns its running jobs to wait now instead of waiting. If
      // it has not been asked to stop yet, this is its first request and the one stop() sends
      // it later its second.
      if (this.runner?.running()) this.runner.requestStop();
      return this.stopping;
    }
    this.stopping = (async () => {
      this.log.info('stopping');
      await this.demo?.stop(DEMO_STOP_GRACE_MS);
      await Promise.all([
        this.runner?.stop(this.settings.shutdownTimeoutMs + RUNNER_STOP_SLACK_MS),
        this.console?.stop(CONSOLE_STOP_GRACE_MS),
      ]);
      if (this.redis) {
        await this.redis.stop();
        this.log.info('embedded Redis stopped (its data stays in ' + this.redis.dir + ')');
      }
      this.log.info('stopped');
    })();
    return this.stopping;
  }

  private processorsDirs(): string[] {
    const dirs = this.settings.processorsDirs.map((dir) => path.resolve(dir));
    if (this.settings.demo) dirs.push(path.join(this.root, DEMO_PROCESSORS_DIR));
    return dirs;
  }

  private throwIfStopping(): void {
    if (this.stopping) throw new LauncherStartError('stopped while starting');
  }
}
