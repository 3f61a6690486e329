/** Flow routes: a job key is only read when it lies under a prefix this console serves. */
import 'server-only';
import { jobLinkOf, type JobLinkRef } from 'oxmq/admin';
import { ApiProblem } from './api-error';
import { configuredPrefixes } from './oxmq';

export function requireServedKey(key: string): JobLinkRef {
  const link = jobLinkOf(key);
  if (!link || !configuredPrefixes().includes(link.prefix)) {
    throw new ApiProblem(404, 'NOT_FOUND', `No job ${key} under the configured prefixes`);
  }
  return link;
}
