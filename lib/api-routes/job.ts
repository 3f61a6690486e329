/** The routes of one job, under its queue's path. */
import type { ApiRoute } from './types';

const J = '/api/queues/:prefix/:name/jobs/:id';

export const JOB_ROUTES: readonly ApiRoute[] = [
  {
    method: 'GET',
    path: J,
    access: 'viewer',
    summary: 'The job, redacted, with a page of children.',
  },
  {
    method: 'GET',
    path: `${J}/logs`,
    access: 'viewer',
    summary: 'Log lines, page 1 the newest (`page`, `pageSize` up to 200).',
  },
  {
    method: 'GET',
    path: `${J}/timeline`,
    access: 'viewer',
    summary: 'The lifecycle timeline across attempts, bounded (`maxScan`, `maxEntries`).',
  },
  {
    method: 'POST',
    path: `${J}/retry`,
    access: { action: 'job.retry' },
    summary: 'Body `{}`; retries a failed or completed job.',
  },
  {
    method: 'POST',
    path: `${J}/promote`,
    access: { action: 'job.promote' },
    summary: 'Body `{}`; promotes a delayed job.',
  },
  {
    method: 'POST',
    path: `${J}/duplicate`,
    access: { action: 'job.duplicate' },
    summary: 'Body `{}`; adds a copy (same name, data and options), answers its `id`.',
  },
  {
    method: 'POST',
    path: `${J}/priority`,
    access: { action: 'job.priority' },
    summary: 'Body `{ "priority": n }` (0 takes it out of the prioritized jobs).',
  },
  {
    method: 'POST',
    path: `${J}/delay`,
    access: { action: 'job.delay' },
    summary: 'Body `{ "delay": ms }`; changes a delayed job\'s delay.',
  },
  {
    method: 'POST',
    path: `${J}/remove`,
    access: { action: 'job.remove' },
    summary: 'Body `{}`; removes the job (not a running one).',
  },
  {
    method: 'POST',
    path: `${J}/data`,
    access: { action: 'job.data' },
    summary:
      'Body `{ "data": <JSON> }`; replaces the data, keeping the stored value wherever the edit still shows a redacted one.',
  },
  {
    method: 'POST',
    path: `${J}/cancel`,
    access: { action: 'job.cancel' },
    summary:
      'Body `{ "reason"?, "force"? }`; cancels the running job through its OxMQ worker, answers `{ outcome }` (see [Job page](#job-page-and-flows-page)).',
  },
  {
    method: 'GET',
    path: `${J}/cancel`,
    access: 'viewer',
    summary:
      "The running attempt's cancel request (`reason`, `ageMs`, `forced`) or null, whether a force stop can work, and the grace period.",
  },
];
