import type { QueueKeys } from '../../keys';
import type { AddResult, NewJob } from '../queue-backend';
import { UnexpectedReplyError } from '../../errors';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys, type ScriptKeys } from '../../scripts/script-keys';

/** The keys of an add, as lua/addJob-11.lua's header (and addJobBatch's) lists them. */
export function addJobKeys(k: QueueKeys): ScriptKeys<'addJob'> {
  return scriptKeys('addJob', k);
}

/** The job table the insertJob include reads (lua/includes/insertJob.lua). */
export function jobTable(base: string, job: NewJob): Record<string, unknown> {
  return {
    base,
    customId: job.customId ?? '',
    name: job.name,
    timestamp: job.timestamp,
    data: job.data,
    opts: job.opts,
    delay: job.delay,
    priority: job.priority,
    lifo: job.lifo,
    fields: Object.entries(job.fields).flat(),
    parentKey: job.parent?.key,
    parent: job.parent ? JSON.stringify(job.parent.link) : undefined,
    asParent: job.asParent === true,
    dedup: job.deduplication,
    groupId: job.groupId,
  };
}

export function addJobArgs(k: QueueKeys, job: NewJob): (string | number)[] {
  return [JSON.stringify(jobTable(k.base, job)), Date.now()];
}

export function parseAddReply(reply: unknown, jobId = '(new)'): AddResult {
  throwIfErrorCode(reply, jobId, 'addJob');
  if (!Array.isArray(reply) || reply.length < 2) {
    throw new UnexpectedReplyError(`addJob replied ${JSON.stringify(reply)}`);
  }
  return {
    jobId: String(reply[0]),
    duplicate: Number(reply[1]) === 1,
    deduplicated: Number(reply[1]) === 2,
  };
}
