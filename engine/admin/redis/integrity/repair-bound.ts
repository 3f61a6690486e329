/**
 * The integrity checker and its safe repairs bound to the admin's client (createAdmin's
 * `integrity`): the console's page calls these. On a Redis Cluster both work on the master that
 * holds a hash-tagged queue's slot (queue-node.ts), and refuse an untagged queue with a
 * ValidationError; a bad cursor or budget is a ValidationError too (all as rejections, before any
 * Redis call).
 */
import type { RedisClient } from '../../../backend/redis/connection';
import { checkQueueIntegrity, type IntegrityOptions } from './check-queue-integrity';
import type { IntegrityReport } from './invariants';
import { repairQueueIntegrityStep, validateWalkOptions, type RepairStep } from './repair-walk';

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
      checkQueueIntegrity(client, { prefix, name }, validated(options)),
    /** One budgeted checker call and the safe repairs of its findings. */
    repairStep: async (
      prefix: string,
      name: string,
      options: IntegrityOptions = {},
    ): Promise<RepairStep> =>
      repairQueueIntegrityStep(client, { prefix, name }, validated(options)),
  };
}
