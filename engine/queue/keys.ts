import { ValidationError } from '../errors';

/** The per-queue key suffixes bullmq 6 uses (docs/redis-keys.md). */
export const QUEUE_KEY_NAMES = [
  'wait',
  'paused',
  'meta',
  'id',
  'delayed',
  'prioritized',
  'pc',
  'marker',
  'events',
  'active',
  'completed',
  'failed',
  'stalled',
  'stalled-check',
  'limiter',
  'repeat',
  'waiting-children',
] as const;

export type QueueKeyName = (typeof QUEUE_KEY_NAMES)[number];

/**
 * OxMQ's tenant-group keys under the queue base (docs/redis-keys.md, "Groups"): the queue-level
 * ones, and the per-group ones `group:<gid>:<part>`. lua/includes/groups.lua builds the same
 * names inside its scripts (test/engine/group-keys.test.ts holds the two together).
 */
export const GROUP_QUEUE_KEY_NAMES = [
  'groups',
  'groups:known',
  'groups:turn',
  'group-delayed',
] as const;
export const GROUP_KEY_PREFIX = 'group:';
export const GROUP_KEY_PARTS = ['wait', 'active', 'meta', 'limiter', 'limiter:log'] as const;
export type GroupKeyPart = (typeof GROUP_KEY_PARTS)[number];

/**
 * Names every Redis key of one queue. `base` is `<prefix>:<queueName>:` (with the trailing colon,
 * the "Q" of docs/redis-keys.md); a job's hash is `base + jobId`.
 */
export class QueueKeys {
  readonly base: string;
  /** `<prefix>:<queueName>`, the form stored in a child's `parent.queueKey`. */
  readonly queueKey: string;

  constructor(
    readonly prefix: string,
    readonly queueName: string,
  ) {
    validateQueueName(queueName);
    validatePrefix(prefix);
    this.queueKey = `${prefix}:${queueName}`;
    this.base = `${this.queueKey}:`;
  }

  key(name: QueueKeyName): string {
    return this.base + name;
  }

  get wait() {
    return this.base + 'wait';
  }
  get paused() {
    return this.base + 'paused';
  }
  get meta() {
    return this.base + 'meta';
  }
  get id() {
    return this.base + 'id';
  }
  get delayed() {
    return this.base + 'delayed';
  }
  get prioritized() {
    return this.base + 'prioritized';
  }
  get pc() {
    return this.base + 'pc';
  }
  get marker() {
    return this.base + 'marker';
  }
  get events() {
    return this.base + 'events';
  }
  get active() {
    return this.base + 'active';
  }
  get completed() {
    return this.base + 'completed';
  }
  get failed() {
    return this.base + 'failed';
  }
  get stalled() {
    return this.base + 'stalled';
  }
  get stalledCheck() {
    return this.base + 'stalled-check';
  }
  get limiter() {
    return this.base + 'limiter';
  }
  get repeat() {
    return this.base + 'repeat';
  }
  get waitingChildren() {
    return this.base + 'waiting-children';
  }
  /** OxMQ's delayed grouped jobs (docs/redis-keys.md, "Groups"); bullmq never reads it. */
  get groupDelayed() {
    return this.base + 'group-delayed';
  }
  /** The ring of group ids with ready jobs. */
  get groupsRing() {
    return this.base + 'groups';
  }
  /** Every group id ever used (lexicographic paging). */
  get groupsKnown() {
    return this.base + 'groups:known';
  }
  /** The counter that alternates grouped and ungrouped fetches. */
  get groupsTurn() {
    return this.base + 'groups:turn';
  }
  /** One key of one tenant group: `Q group:<gid>:<part>`. */
  group(groupId: string, part: GroupKeyPart): string {
    return `${this.base}${GROUP_KEY_PREFIX}${groupId}:${part}`;
  }
  // bullmq's KeysMap spells these as the key suffixes themselves; the same keys under its names.
  get ''() {
    return this.base;
  }
  get 'waiting-children'() {
    return this.waitingChildren;
  }
  get 'stalled-check'() {
    return this.stalledCheck;
  }
  /** The prefix of deduplication keys (`Q de`; a window is `Q de:<id>`). */
  get de() {
    return this.base + 'de';
  }
  deduplication(deduplicationId: string): string {
    return `${this.base}de:${deduplicationId}`;
  }
  metrics(type: 'completed' | 'failed'): string {
    return `${this.base}metrics:${type}`;
  }

  /**
   * Keys of a queue taking part in a cluster-safe flow: every queue of the flow shares the
   * hash-tagged prefix `{tag}:<prefix>`, so all their keys hash to one slot and the scripts that
   * reach across queues (child completes → parent released) never raise CROSSSLOT.
   */
  static forClusterFlow(tag: string, prefix: string, queueName: string): QueueKeys {
    return new QueueKeys(clusterFlowPrefix(tag, prefix), queueName);
  }

  job(jobId: string): string {
    return this.base + jobId;
  }
  jobLock(jobId: string): string {
    return `${this.base}${jobId}:lock`;
  }
  jobLogs(jobId: string): string {
    return `${this.base}${jobId}:logs`;
  }
}

/** `{tag}:<prefix>`: the shared prefix of a cluster-safe flow. */
export function clusterFlowPrefix(tag: string, prefix: string): string {
  if (typeof tag !== 'string' || tag.length === 0 || /[{}]/.test(tag)) {
    throw new ValidationError('cluster flow tag must be a non-empty string without braces');
  }
  validatePrefix(prefix);
  return `{${tag}}:${prefix}`;
}

function validateQueueName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new ValidationError('Queue name must be a non-empty string');
  }
  if (name.includes(':')) {
    throw new ValidationError(`Queue name must not contain ":" (got "${name}")`);
  }
}

function validatePrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || prefix.length === 0) {
    throw new ValidationError('Queue prefix must be a non-empty string');
  }
}
