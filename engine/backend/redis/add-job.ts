import type { QueueKeys } from '../../keys';
import type { AddResult, NewJob } from '../queue-backend';
import { UnexpectedReplyError } from '../../errors';
import { throwIfErrorCode } from '../../scripts/error-codes';

export function addJobKeys(k: QueueKeys): string[] {
  return [k.wait, k.meta, k.id, k.delayed, k.prioritized, k.pc, k.marker, k.events, k.active];
}

export function addJobArgs(k: QueueKeys, job: NewJob): (string | number)[] {
  return [
    k.base,
    job.customId ?? '',
    job.name,
    job.timestamp,
    job.data,
    job.opts,
    job.delay,
    job.priority,
    job.lifo ? '1' : '0',
    JSON.stringify(Object.entries(job.fields).flat()),
  ];
}

export function parseAddReply(reply: unknown): AddResult {
  throwIfErrorCode(reply, '(new)', 'addJob');
  if (!Array.isArray(reply) || reply.length < 2) {
    throw new UnexpectedReplyError(`addJob replied ${JSON.stringify(reply)}`);
  }
  return { jobId: String(reply[0]), duplicate: Number(reply[1]) === 1 };
}
