/**
 * The integrity checker and its safe repairs bound to the admin's client (createAdmin's
 * `integrity`): the console's page calls these. Both walk one server's keys (SCAN), so a console
 * on a Redis Cluster is refused with a typed error; a bad cursor or budget is a ValidationError
 * (both as rejections, before any Redis call).
 */
import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from '../../connection';
import { QueueStateError } from '../../errors';
import { checkQueueIntegrity, type IntegrityOptions } from './check-queue-integrity';
import type { IntegrityReport } from './invariants';
import { repairQueueIntegrityStep, validateWalkOptions, type RepairStep } from './repair-walk';

function singleServer(client: RedisClient): Redis {
  if (isCluster(client)) {
    throw new QueueStateError('The integrity checker needs a single Redis server, not a Cluster');
  }
  return client;
}

function validated(options: IntegrityOptions): IntegrityOptions {
  validateWalkOptions(options);
  return options;
}

export function boundIntegrity(client: RedisClient) {
  return {
    /** One budgeted, read-only checker call (docs/integrity.md). */
    check: async (
      prefix: string,
      name: string,
      options: IntegrityOptions = {},
    ): Promise<IntegrityReport> =>
      checkQueueIntegrity(singleServer(client), { prefix, name }, validated(options)),
    /** One budgeted checker call and the safe repairs of its findings. */
    repairStep: async (
      prefix: string,
      name: string,
      options: IntegrityOptions = {},
    ): Promise<RepairStep> =>
      repairQueueIntegrityStep(singleServer(client), { prefix, name }, validated(options)),
  };
}
