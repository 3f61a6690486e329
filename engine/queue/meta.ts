/**
 * Queue.getMeta's answer, parsed as bullmq 6.7 parses the meta hash: `opts.maxLenEvents` is
 * reported as `maxLenEvents`, the limits as numbers, `paused` as a boolean (true only for "1");
 * any other field is passed on as stored.
 */
export interface QueueMeta {
  concurrency?: number;
  max?: number;
  duration?: number;
  maxLenEvents?: number;
  paused: boolean;
  /** `<library>:<version>` of the last Queue that started on it (`bullmq:6.7.0`, `bullmq-oxmq:0.1.0`). */
  version?: string;
  [field: string]: string | number | boolean | undefined;
}

const NUMERIC_FIELDS = { concurrency: 'concurrency', max: 'max', duration: 'duration' } as const;

export function parseQueueMeta(hash: Record<string, string>): QueueMeta {
  const { paused, 'opts.maxLenEvents': maxLenEvents, ...rest } = hash;
  const meta: QueueMeta = { ...rest, paused: paused === '1' };
  for (const field of Object.values(NUMERIC_FIELDS)) {
    // An empty value is left out, as bullmq skips falsy fields.
    if (rest[field]) meta[field] = Number(rest[field]);
    else delete meta[field];
  }
  if (maxLenEvents) meta.maxLenEvents = Number(maxLenEvents);
  return meta;
}
