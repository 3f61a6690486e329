/** The routes of one queue (its jobs' own routes are in job.ts). */
import type { ApiRoute } from './types';

const Q = '/api/queues/:prefix/:name';

export const QUEUE_ROUTES: readonly ApiRoute[] = [
  { method: 'GET', path: Q, access: 'viewer', summary: "One queue's overview." },
  {
    method: 'POST',
    path: `${Q}/pause`,
    access: { action: 'queue.pause' },
    summary: 'Body `{}`; pauses the queue.',
  },
  {
    method: 'POST',
    path: `${Q}/resume`,
    access: { action: 'queue.resume' },
    summary: 'Body `{}`; resumes the queue.',
  },
  {
    method: 'POST',
    path: `${Q}/drain`,
    access: { action: 'queue.drain' },
    summary:
      'Body `{ confirm, delayed? }`; removes every waiting job (and delayed ones with `delayed: true`).',
  },
  {
    method: 'POST',
    path: `${Q}/clean`,
    access: { action: 'queue.clean' },
    summary:
      'Body `{ confirm, state, graceMs, limit? }`; removes jobs of the state older than `graceMs`, answers `{ removed }`.',
  },
  {
    method: 'POST',
    path: `${Q}/obliterate`,
    access: { action: 'queue.obliterate' },
    summary:
      'Body `{ confirm, force? }`; deletes the queue and all its jobs (with running jobs only when `force`).',
  },
  {
    method: 'GET',
    path: `${Q}/diagnose`,
    access: 'viewer',
    summary: "Why the queue isn't moving (see [Queue page](#queue-page)).",
  },
  {
    method: 'GET',
    path: `${Q}/limits`,
    access: 'viewer',
    summary:
      "The queue-wide rate limit and concurrency, the workers' own, the limit in force and the limiter's window.",
  },
  {
    method: 'POST',
    path: `${Q}/limits`,
    access: { action: 'queue.limits' },
    summary:
      'Body `{ rateLimit?, globalConcurrency? }`, null to remove one; answers the limits as they are now.',
  },
  {
    method: 'GET',
    path: `${Q}/metrics`,
    access: 'viewer',
    summary: "One queue's per-minute metrics (`minutes` up to 1440).",
  },
  {
    method: 'GET',
    path: `${Q}/history`,
    access: 'viewer',
    summary:
      "One queue's timing and backlog history: `range` `1h` (default), `6h`, `24h`, `7d`, `30d`; `name` (≤ 200 chars) narrows it to one job name.",
  },
  {
    method: 'GET',
    path: `${Q}/integrity`,
    access: { read: 'integrity check' },
    summary:
      'One budgeted, read-only integrity check from `cursor` (`budget`), and the repairs that are safe ([docs/integrity.md](docs/integrity.md)).',
  },
  {
    method: 'POST',
    path: `${Q}/integrity`,
    access: { action: 'queue.integrity.repair' },
    summary:
      'Body `{ cursor?, budget? }`; one check-and-repair step, the safe repairs only, each applied one audited as `queue.integrity.repaired`.',
  },
  {
    method: 'GET',
    path: `${Q}/jobs`,
    access: 'viewer',
    summary: "A page of one `state`'s jobs (default waiting; `page`, `pageSize` up to 100).",
  },
  {
    method: 'POST',
    path: `${Q}/jobs`,
    access: { action: 'job.add' },
    summary:
      'Body `{ name, data, opts }` (opts: `jobId`, `delay`, `priority`, `attempts`, `backoff`, `lifo`); adds a job, answers `{ ok, id }`; the queue may be new.',
  },
  {
    method: 'GET',
    path: `${Q}/search`,
    access: 'viewer',
    summary:
      'One bounded page of a search (`mode` `id`, `name`, `text` or `path`; `q`, `path`, `state`, `order`, `cursor`, `budget`): at most 5,000 jobs and 8 MiB of fields, with a cursor.',
  },
  {
    method: 'GET',
    path: `${Q}/search/stream`,
    access: 'viewer',
    summary:
      'A search of the whole state (`mode` `name`, `text` or `path`; `q`, `path`, `state`, `order`) as NDJSON lines: `matches`, `progress`, then `end` or `error`.',
  },
  {
    method: 'GET',
    path: `${Q}/export`,
    access: 'viewer',
    summary:
      "A `state`'s jobs, or a search's (`mode`, `q`, `path`), redacted, as a download: `format` `jsonl` (default) or `csv`, `order`, `limit`.",
  },
  {
    method: 'GET',
    path: `${Q}/error-groups`,
    access: 'viewer',
    summary:
      "The queue's failed jobs grouped by error, one bounded call (`cursor`, `budget`; see [Error groups](#error-groups)).",
  },
  {
    method: 'POST',
    path: `${Q}/selection`,
    access: { action: 'jobs.selection' },
    summary:
      'Body `{ action, ids }`; retries, promotes or removes up to 100 ticked jobs (removing needs admin).',
  },
  {
    method: 'POST',
    path: `${Q}/bulk`,
    access: { action: 'jobs.bulk.create' },
    summary:
      'Body `{ action, state, filter?, confirm? }`; starts a bulk action on all of a state, or on what `filter` matches (removing needs admin and `confirm`).',
  },
  {
    method: 'GET',
    path: `${Q}/bulk/:id`,
    access: 'viewer',
    summary: 'Where a bulk action stands.',
  },
  {
    method: 'POST',
    path: `${Q}/bulk/:id/step`,
    access: { action: 'jobs.bulk.step' },
    summary:
      "Body `{ chunk? }`; runs the next chunk (up to 500 jobs), checked against the role the bulk action's kind needs.",
  },
  {
    method: 'POST',
    path: `${Q}/bulk/:id/cancel`,
    access: { action: 'jobs.bulk.cancel' },
    summary: 'Body `{}`; stops a bulk action where it is.',
  },
  {
    method: 'GET',
    path: `${Q}/schedulers`,
    access: 'viewer',
    summary:
      'A page of job schedulers, soonest next run first (`{ schedulers, total, page, pageSize }`, `pageSize` up to 100).',
  },
  {
    method: 'POST',
    path: `${Q}/schedulers/:schedulerId/run`,
    access: { action: 'scheduler.run' },
    summary: 'Body `{}`; adds one job from the template now, answers `{ ok, jobId }`.',
  },
  {
    method: 'POST',
    path: `${Q}/schedulers/:schedulerId/pause`,
    access: { action: 'scheduler.pause' },
    summary: 'Body `{}`; takes the pending iteration out until resumed.',
  },
  {
    method: 'POST',
    path: `${Q}/schedulers/:schedulerId/resume`,
    access: { action: 'scheduler.resume' },
    summary: 'Body `{}`; answers `{ ok, next }`; 409 when it is not paused.',
  },
  {
    method: 'POST',
    path: `${Q}/schedulers/:schedulerId/repeat`,
    access: { action: 'scheduler.repeat' },
    summary:
      'Body `{ "every": ms }` or `{ "pattern", "tz"? }`; answers `{ ok, next }`; 409 while paused.',
  },
  {
    method: 'POST',
    path: `${Q}/schedulers/:schedulerId/remove`,
    access: { action: 'scheduler.remove' },
    summary: 'Body `{}`; 404 when there is no such scheduler.',
  },
  {
    method: 'GET',
    path: `${Q}/groups`,
    access: 'viewer',
    summary:
      "A page of tenant groups (`cursor`, `count` up to 200): `{ groups, cursor, defaults }`, `cursor` '' after the last page.",
  },
  {
    method: 'GET',
    path: `${Q}/groups/:groupId/jobs`,
    access: 'viewer',
    summary:
      "The group's line, next first, and its running jobs: `{ waiting, waitingTotal, active, activeTotal, page, pageSize }`.",
  },
  {
    method: 'POST',
    path: `${Q}/groups/:groupId/pause`,
    access: { action: 'group.pause' },
    summary: 'Body `{}`; answers the group as it is now; 404 for a group the queue never had.',
  },
  {
    method: 'POST',
    path: `${Q}/groups/:groupId/resume`,
    access: { action: 'group.resume' },
    summary: 'Body `{}`; answers the group as it is now; 404 for a group the queue never had.',
  },
  {
    method: 'POST',
    path: `${Q}/groups/:groupId/concurrency`,
    access: { action: 'group.concurrency' },
    summary: 'Body `{ "concurrency": n }`, or null for the queue default; answers the group.',
  },
  {
    method: 'POST',
    path: `${Q}/groups/:groupId/rate-limit`,
    access: { action: 'group.rate-limit' },
    summary:
      'Body `{ "rateLimit": { max, duration } }`, or null for the queue default; answers the group.',
  },
  {
    method: 'GET',
    path: `${Q}/workers`,
    access: 'viewer',
    summary: "The queue's live OxMQ workers, from their heartbeats (`limit` up to 1,000).",
  },
  {
    method: 'POST',
    path: `${Q}/workers/:workerId/quiet`,
    access: { action: 'worker.quiet' },
    summary:
      'Body `{}`; the worker takes no new job from its next heartbeat; 404 for no live worker of that id.',
  },
  {
    method: 'POST',
    path: `${Q}/workers/:workerId/resume`,
    access: { action: 'worker.resume' },
    summary:
      'Body `{}`; the quieted worker takes jobs again from its next heartbeat; 404 for no live worker of that id.',
  },
  {
    method: 'GET',
    path: `${Q}/notifications`,
    access: 'viewer',
    summary:
      'Whether the console notifies about the queue, and whether it is muted, by whom, when.',
  },
  {
    method: 'POST',
    path: `${Q}/notifications/mute`,
    access: { action: 'queue.notify.mute' },
    summary:
      "Body `{}`; mutes the queue's notifications (409 when the prefix has the most mutes it keeps).",
  },
  {
    method: 'POST',
    path: `${Q}/notifications/unmute`,
    access: { action: 'queue.notify.unmute' },
    summary: "Body `{}`; unmutes the queue's notifications.",
  },
];
