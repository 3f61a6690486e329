/**
 * `node --import tsx demo/producer.ts`: feeds the demo queues (see docs/demo.md) until SIGTERM or
 * SIGINT, then stops its timers, closes its queues and exits 0; a stop that takes longer than
 * STOP_DEADLINE_MS exits anyway. Further signals are ignored: Ctrl-C under the launcher reaches
 * this process twice (from the terminal and forwarded), and stopping takes milliseconds.
 */
import { ConfigError } from '../config/config-error';
import { describeRedisTarget, openRedis } from '../config/redis-connection';
import { startDemoProducer, type DemoProducer } from './demo-producer';
import { createDemoLogger } from './logger';
import { loadDemoSettings, type DemoSettings } from './settings';

const STOP_DEADLINE_MS = 5_000;

function readSettings(): DemoSettings {
  try {
    return loadDemoSettings();
  } catch (error) {
    if (error instanceof ConfigError) {
      // Its message names every bad setting and where it came from.
      process.stderr.write(`OxMQ demo producer: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

function main(): void {
  const settings = readSettings();
  const logger = createDemoLogger(settings);
  // Producers fail fast while Redis is away (the feed logs it and retries on its next turn)
  // instead of queueing commands forever.
  const connection = openRedis(settings.redis, { maxRetriesPerRequest: 3 });
  // ioredis reports every failed reconnect: log the first of each outage only.
  let connected = true;
  connection.on('error', (err) => {
    if (connected) logger.warn({ err: err.message }, 'redis connection error: retrying');
    connected = false;
  });
  connection.on('ready', () => {
    if (!connected) logger.info('redis connection back');
    connected = true;
  });

  // The handlers go in before the producer says it started: a signal that arrives between that
  // line and a later process.on() would find Node's default action (exit) still in place.
  const started: { producer?: DemoProducer } = {};
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping the demo producer');
    setTimeout(() => {
      logger.warn({ deadlineMs: STOP_DEADLINE_MS }, 'stop took too long: exiting now');
      process.exit(0);
    }, STOP_DEADLINE_MS).unref();
    // Everything closed, the process ends on its own (exit code 0) once what is in flight has
    // settled, rather than by process.exit() under a module load or a log write still pending.
    void (started.producer?.stop() ?? Promise.resolve())
      .then(() => connection.quit())
      .then(() => {
        process.exitCode = 0;
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  started.producer = startDemoProducer({
    connection,
    prefix: settings.prefix,
    clusterHashTags: settings.clusterHashTags,
    logger,
  });
  logger.info(
    { speed: settings.speed, redis: describeRedisTarget(settings.redis) },
    'demo running',
  );
}

main();
