/**
 * Where a cancel request through Redis stands for a running job, for the console's job page: the
 * request made for the attempt now running (the job hash's `oxmq.cancel`, written by
 * requestJobCancel-8.lua) and whether the worker holding the job can force stop it (its processor
 * runs in sandbox children, which a force stop kills). A request made for an earlier attempt
 * (the job was retried since) does not count.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { cancelHolder } from '../../backend/redis/worker-requests';
import { QueueKeys } from '../../queue/keys';
import { DEFAULT_REDACTION, redactString, type RedactionRules } from '../redaction';

/**
 * How long a processor gets to stop after a cancel before the page says it ignores the signal:
 * a healthy worker ends a cooperative attempt within a second.
 */
export const CANCEL_GRACE_MS = 5_000;

export interface JobCancelRequest {
  /** When it was made (ms, the requester's clock). */
  at: number;
  /** Its reason, redacted like a failure reason. */
  reason: string;
  /** When a force stop was asked for, if one was. */
  forceAt: number | null;
}

export interface JobCancelState {
  /** The request for the attempt now running, or null. */
  request: JobCancelRequest | null;
  /** The holding worker's processor is sandboxed: a force stop can end the attempt. */
  canForce: boolean;
  graceMs: number;
}

/** undefined when the job does not exist. */
export async function getJobCancelState(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
  rules: RedactionRules = DEFAULT_REDACTION,
): Promise<JobCancelState | undefined> {
  const keys = new QueueKeys(prefix, queueName);
  const [ats, stored, id] = await client.hmget(keys.job(jobId), 'ats', 'oxmq.cancel', 'name');
  if (ats === null && stored === null && id === null) return undefined;
  const request = requestOf(stored ?? null, Number(ats ?? 0), rules);
  const { canForce } = await cancelHolder(client, keys, jobId);
  return { request, canForce, graceMs: CANCEL_GRACE_MS };
}

function requestOf(
  stored: string | null,
  attempt: number,
  rules: RedactionRules,
): JobCancelRequest | null {
  if (!stored) return null;
  try {
    const parsed = JSON.parse(stored) as Record<string, unknown>;
    if (parsed.attempt !== attempt || typeof parsed.at !== 'number') return null;
    return {
      at: parsed.at,
      reason: redactString(typeof parsed.reason === 'string' ? parsed.reason : '', rules),
      forceAt: typeof parsed.forceAt === 'number' ? parsed.forceAt : null,
    };
  } catch {
    return null;
  }
}
