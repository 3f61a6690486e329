/**
 * The queue integrity checker (docs/integrity.md, "Console page"). GET: one budgeted, read-only
 * checker call from `cursor`. POST: one check-and-repair step (the safe repairs only), same-origin
 * and audited as `queue.integrity.repair`; its applied repairs get an audit entry of their own,
 * `queue.integrity.repaired`, since the request entry records only what was asked.
 *
 * Both need the admin role: the walk is the heaviest read the console can start (a SCAN of the
 * queue's keys and thousands of probes per request) and has no per-user budget like search, and
 * what it finds only an admin can act on.
 */
import type { IntegrityCheckResponse, IntegrityRepairResponse } from '@/lib/api-types';
import { integrityQuerySchema, integrityRepairBodySchema } from '@/lib/http/integrity';
import { SAFE_REPAIRS } from 'oxmq/admin';
import { withRoute } from '@/lib/server/api';
import { admin, recordAudit } from '@/lib/server/oxmq';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

/** Applied repairs listed in the detail audit entry (the count is always complete). */
const AUDITED_REPAIRS = 50;

export const GET = withRoute(
  { role: 'admin', params: queueParams, query: integrityQuerySchema },
  async ({ params, query }): Promise<IntegrityCheckResponse> => {
    await requireQueue(params.prefix, params.name);
    const report = await admin().integrity.check(params.prefix, params.name, query);
    return { report, repairable: Object.keys(SAFE_REPAIRS) };
  },
);

export const POST = withRoute(
  {
    mutation: { action: 'queue.integrity.repair', target: queueTarget },
    params: queueParams,
    body: integrityRepairBodySchema,
  },
  async ({ params, body, user }): Promise<IntegrityRepairResponse> => {
    await requireQueue(params.prefix, params.name);
    const step = await admin().integrity.repairStep(params.prefix, params.name, body);
    const applied = step.repairs.filter((repair) => repair.applied);
    if (applied.length > 0) {
      try {
        await recordAudit({
          actor: user.username,
          role: user.role,
          action: 'queue.integrity.repaired',
          target: queueTarget(params),
          params: { applied: applied.length, repairs: applied.slice(0, AUDITED_REPAIRS) },
          outcome: 'ok',
          status: 200,
        });
      } catch (error) {
        // The repairs are made: the answer must say so even when the audit store fails.
        console.error('OxMQ console: could not write the audit log:', error);
      }
    }
    return { report: step.report, repairs: step.repairs, cursor: step.cursor ?? null };
  },
);
