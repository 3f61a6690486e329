/** Route parameters naming one queue, and the 404 for queues the console does not serve. */
import 'server-only';
import { z } from 'zod';
import { ApiProblem } from './api-error';
import { admin, configuredPrefixes } from './oxmq';

export const queueParams = z.object({
  prefix: z.string().min(1).max(256),
  // bullmq refuses ':' in queue names; refusing it here keeps keys from being spliced.
  name: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^:]+$/, 'a queue name cannot contain ":"'),
});

export const queueTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}`;

/** Throws 404 unless the prefix is one the console serves (the queue may not exist yet). */
export function requirePrefix(prefix: string): void {
  if (!configuredPrefixes().includes(prefix)) {
    throw new ApiProblem(404, 'NOT_FOUND', `Prefix ${prefix} is not served by this console`);
  }
}

/** Throws 404 unless the prefix is configured and the queue's meta exists. */
export async function requireQueue(prefix: string, name: string): Promise<void> {
  if (!configuredPrefixes().includes(prefix) || !(await admin().queues.exists(prefix, name))) {
    throw new ApiProblem(404, 'NOT_FOUND', `No queue ${name} under prefix ${prefix}`);
  }
}
