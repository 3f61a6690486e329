/**
 * POST …/workers/:workerId/quiet and …/resume: a command an OxMQ worker picks up on its next
 * heartbeat (quiet: take no new job, finish the running ones). 404 when no live worker of the
 * queue has that id.
 */
import 'server-only';
import { z } from 'zod';
import type { WorkerCommandResponse } from '../api-types';
import { ApiProblem } from './api-error';
import { withRoute } from './api';
import { admin } from './oxmq';
import { queueParams, requireQueue } from './queue-route';

const workerParams = queueParams.extend({
  // Worker ids are UUIDs; anything else is refused before it reaches a key name.
  workerId: z.string().regex(/^[0-9a-f-]{8,64}$/i, 'a worker id is a UUID'),
});

export function workerCommandRoute(command: 'quiet' | 'resume') {
  return withRoute(
    {
      mutation: {
        action: `worker.${command}`,
        target: (params) =>
          `${params.prefix ?? '?'}:${params.name ?? '?'}:${params.workerId ?? '?'}`,
      },
      params: workerParams,
    },
    async ({ params }): Promise<WorkerCommandResponse> => {
      await requireQueue(params.prefix, params.name);
      const sent = await admin().workers[command](params.prefix, params.name, params.workerId);
      if (!sent) {
        throw new ApiProblem(
          404,
          'NOT_FOUND',
          `No live OxMQ worker ${params.workerId} on this queue`,
        );
      }
      return { ok: true, pendingUntilNextHeartbeat: true };
    },
  );
}
