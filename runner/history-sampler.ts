/**
 * The runner's share of the backlog history (engine/admin/redis/backlog-sampler.ts): it offers to
 * sample the prefixes it serves; the lease makes one process (a runner or a console) do it each
 * minute. On its own connection, so a slow sample never delays a worker's commands.
 */
import { BacklogSampler } from 'oxmq/admin';
import { openRedis } from '../config/redis-connection';
import type { RedisTarget } from '../config/redis-settings';
import type { Logger } from './logger';

export interface RunnerSampler {
  stop(): Promise<void>;
}

export function startRunnerSampler(
  target: RedisTarget,
  prefixes: readonly string[],
  logger: Logger,
): RunnerSampler {
  const client = openRedis(target, {
    connectionName: 'oxmq:runner:history',
    maxRetriesPerRequest: 1,
  });
  // Redis away: one line when sampling starts failing, not one per attempt.
  let failing = false;
  client.on('error', () => undefined);
  const sampler = new BacklogSampler(client, {
    prefixes,
    onSampled: () => {
      if (failing) logger.info('backlog history sampling works again');
      failing = false;
    },
    onError: (error) => {
      if (failing) return;
      failing = true;
      logger.warn({ error: String(error) }, 'backlog history sampling failed; retrying');
    },
  });
  sampler.start();
  return {
    async stop() {
      await sampler.stop();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
