/** The console's routes outside one queue: discovery, metrics, live events, sign-in, admin. */
import type { ApiRoute } from './types';

export const CONSOLE_ROUTES: readonly ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/audit',
    access: { read: 'audit log' },
    summary:
      'The audit log, newest first: `kind` `accepted` (default) or `refused`, `pageSize` (up to 100), `before` (the next cursor).',
  },
  {
    method: 'GET',
    path: '/api/auth/*',
    access: 'no session',
    summary:
      "next-auth's pages and reads the console uses: `session`, `csrf`, `providers`, `signin`, `signout`, `error`.",
  },
  {
    method: 'POST',
    path: '/api/auth/*',
    access: 'no session',
    summary:
      'Sign in (`callback/credentials`, a form of `username` and `password`; throttled, 429) and sign out (`signout`).',
  },
  {
    method: 'GET',
    path: '/api/events',
    access: 'viewer',
    summary:
      "Server-sent events of the queues' event streams (`queues`: comma-separated `<prefix>/<name>`, every discovered queue without it).",
  },
  {
    method: 'GET',
    path: '/api/flows/:prefix/:queue/:id',
    access: 'viewer',
    summary:
      'The flow graph around a job, from its root (`depth` up to 10, `maxNodes` up to 500, `maxChildrenPerNode` up to 100).',
  },
  {
    method: 'GET',
    path: '/api/flows/children',
    access: 'viewer',
    summary:
      "The next page of one flow node's children (`parentKey`, `cursor`, `level`, `count` up to 100).",
  },
  {
    method: 'GET',
    path: '/api/health',
    access: 'no session',
    summary: '200 `{ "status": "ok" }` when Redis answers PING, 503 otherwise.',
  },
  {
    method: 'GET',
    path: '/api/jobs/find',
    access: 'viewer',
    summary:
      'The discovered queues holding a job with this `id`: `{ locations: [{ prefix, queue, id, jobName, state }] }`.',
  },
  {
    method: 'GET',
    path: '/api/metrics',
    access: 'viewer',
    summary:
      'Completed / failed per minute for a page of queues (`minutes` up to 180, `page`, `pageSize` up to 50).',
  },
  {
    method: 'GET',
    path: '/api/metrics/history',
    access: 'viewer',
    summary:
      'The timing and backlog history (`range`, `name` as for one queue) summed over a page of discovered queues (`pageSize` up to 20).',
  },
  {
    method: 'GET',
    path: '/api/metrics/sparklines',
    access: 'viewer',
    summary:
      "The last hour's completed / failed per minute of up to 100 `queues` (comma-separated `<prefix>/<name>`), from the history.",
  },
  {
    method: 'GET',
    path: '/api/metrics/total',
    access: 'viewer',
    summary:
      "Completed / failed per minute summed over a page of queues (the overview's `page`, `pageSize`), and how many keep metrics.",
  },
  {
    method: 'GET',
    path: '/api/notifications',
    access: { read: 'notifications' },
    summary:
      'The notification settings in force (webhooks by label, never by URL), which console process sends, and the muted queues.',
  },
  {
    method: 'POST',
    path: '/api/notifications/test',
    access: { action: 'notify.test' },
    summary:
      "Body `{}`; sends a test notification to every webhook, one attempt each, and answers each one's outcome (409 with no webhook).",
  },
  {
    method: 'GET',
    path: '/api/prometheus',
    access: 'no session',
    summary:
      "Every queue's state in Prometheus' text format, for `Authorization: Bearer <OXMQ_METRICS_TOKEN>` (404 while it is not set).",
  },
  {
    method: 'GET',
    path: '/api/queues',
    access: 'viewer',
    summary:
      'A page of the queues under the prefixes (`page`, `pageSize` up to 100) with counts, workers, limits and `problems` (see [Overview](#overview)).',
  },
  {
    method: 'POST',
    path: '/api/users/:username/sign-out',
    access: { action: 'user.sign-out-everywhere' },
    summary:
      "Body `{}`; ends every one of the user's sessions on every console process (404 for a user not configured).",
  },
  {
    method: 'GET',
    path: '/api/workers',
    access: 'viewer',
    summary:
      'Workers of a page of queues (`page`, `pageSize` up to 200): connections, and one row per worker with its OxMQ heartbeat.',
  },
];
