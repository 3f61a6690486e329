import type { QueueKeys } from '../../queue/keys';
import type { AddResult, NewJob } from '../queue-backend';
import { UnexpectedReplyError } from '../../errors';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys, type ScriptKeys } from '../../scripts/script-keys';

/** The keys of an add, as lua/addJob-1.lua's header lists them. */
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

/**
 * The arguments of lua/addJob-1.lua. A plain job goes as a few positional strings, trailing
 * defaults left out: Redis pays for each argument, and decoding a JSON table in Lua costs it
 * more than the rest of a plain add's script logic (docs/benchmarks.md, scenario add). Any other
 * job goes as the job table insertJob reads.
 */
export function addJobArgs(k: QueueKeys, job: NewJob): string[] {
  return plainJobArgs(job) ?? [JSON.stringify(jobTable(k.base, job)), String(Date.now())];
}

/**
 * The arguments of lua/addJobBatch-11.lua: the positional form when every job is plain (each
 * job's argument count, then its arguments), else the array of job tables.
 */
export function addJobBatchArgs(k: QueueKeys, jobs: readonly NewJob[]): string[] {
  const args = ['plain'];
  for (const job of jobs) {
    const own = plainJobArgs(job);
    if (!own) {
      return [JSON.stringify(jobs.map((each) => jobTable(k.base, each))), String(Date.now())];
    }
    args.push(String(own.length), ...own);
  }
  return args;
}

/** A plain job's positional arguments (includes/insertPlainJob.lua), or undefined. */
function plainJobArgs(job: NewJob): string[] | undefined {
  if (!isPlainJob(job)) return undefined;
  const args = [
    job.name,
    String(job.timestamp),
    job.data,
    job.opts,
    String(job.delay),
    String(job.priority),
    job.customId ?? '',
    job.lifo ? '1' : '0',
  ];
  let extraFields = false;
  for (const name in job.fields) {
    args.push(name, job.fields[name]!);
    extraFields = true;
  }
  if (!extraFields) {
    while (args.length > 4 && PLAIN_DEFAULTS[args.length - 1] === args[args.length - 1]) args.pop();
  }
  return args;
}

/** The script's value for each left-out trailing argument of a plain job (by index). */
const PLAIN_DEFAULTS: readonly (string | undefined)[] = [
  undefined,
  undefined,
  undefined,
  undefined,
  '0',
  '0',
  '',
  '0',
];

/**
 * A job the script's plain path takes: no parent, children, deduplication or group, and whole
 * ms, whose decimal text is the same from JavaScript as from Lua's number formatting (a
 * fractional timestamp or delay goes through the job table).
 */
function isPlainJob(job: NewJob): boolean {
  return (
    job.parent === undefined &&
    job.asParent !== true &&
    job.deduplication === undefined &&
    job.groupId === undefined &&
    Number.isSafeInteger(job.timestamp) &&
    Number.isSafeInteger(job.delay) &&
    Number.isSafeInteger(job.priority)
  );
}

export function parseAddReply(reply: unknown, jobId = '(new)'): AddResult {
  throwIfErrorCode(reply, jobId, 'addJob');
  // A new plain job's id comes back alone (includes/insertPlainJob.lua); the job-table path
  // replies {id, 0}.
  if (typeof reply === 'string') return { jobId: reply, duplicate: false, deduplicated: false };
  if (!Array.isArray(reply) || reply.length < 2) {
    throw new UnexpectedReplyError(`addJob replied ${JSON.stringify(reply)}`);
  }
  return {
    jobId: String(reply[0]),
    duplicate: Number(reply[1]) === 1,
    deduplicated: Number(reply[1]) === 2,
  };
}
