/**
 * What each role may change: every console action that changes something, by its audit name,
 * with the weakest role allowed. `withRoute` (lib/server/api.ts) takes a mutation's role from
 * here and nowhere else, so this table is the rule; the role tables in docs/console.md and
 * docs/security.md are generated from it (lib/permissions-table.ts) and a test keeps them equal.
 * Reads need `viewer` unless READ_PERMISSIONS says more. The roles of docs/console.md's API table
 * (lib/api-routes/) come from here too, and a test holds each route handler to them.
 */
import type { Role } from './roles';

interface Permission {
  readonly role: Role;
  /** What the action does, as the docs' table says it. */
  readonly does: string;
}

export const ACTION_PERMISSIONS = {
  'queue.pause': { role: 'operator', does: 'Pause a queue' },
  'queue.resume': { role: 'operator', does: 'Resume a queue' },
  'queue.limits': { role: 'operator', does: 'Set concurrency and rate limits' },
  'job.add': { role: 'operator', does: 'Add a job' },
  'job.retry': { role: 'operator', does: 'Retry a job' },
  'job.promote': { role: 'operator', does: 'Promote a delayed job' },
  'job.delay': { role: 'operator', does: "Change a delayed job's delay" },
  'job.priority': { role: 'operator', does: "Change a job's priority" },
  'job.duplicate': { role: 'operator', does: 'Duplicate a job' },
  'job.cancel': { role: 'operator', does: 'Cancel a running job' },
  'jobs.selection': { role: 'operator', does: 'Act on selected jobs (see bulk actions)' },
  'jobs.bulk.create': { role: 'operator', does: 'Start a bulk action (see bulk actions)' },
  'jobs.bulk.step': { role: 'operator', does: 'Run the next chunk of a bulk action' },
  'jobs.bulk.cancel': { role: 'operator', does: 'Stop a bulk action' },
  'scheduler.run': { role: 'operator', does: 'Run a job scheduler now' },
  'scheduler.pause': { role: 'operator', does: 'Pause a job scheduler' },
  'scheduler.resume': { role: 'operator', does: 'Resume a job scheduler' },
  'scheduler.repeat': { role: 'operator', does: "Change a job scheduler's schedule" },
  'group.pause': { role: 'operator', does: 'Pause a group' },
  'group.resume': { role: 'operator', does: 'Resume a group' },
  'group.concurrency': { role: 'operator', does: "Set a group's concurrency" },
  'group.rate-limit': { role: 'operator', does: "Set a group's rate limit" },
  'worker.quiet': { role: 'operator', does: 'Quiet a worker (it takes no new jobs)' },
  'worker.resume': { role: 'operator', does: 'Resume a quieted worker' },
  'queue.notify.mute': { role: 'operator', does: "Mute a queue's notifications" },
  'queue.notify.unmute': { role: 'operator', does: "Unmute a queue's notifications" },
  'job.remove': { role: 'admin', does: 'Remove a job' },
  'job.data': { role: 'admin', does: "Edit a job's data" },
  'scheduler.remove': { role: 'admin', does: 'Remove a job scheduler' },
  'queue.drain': { role: 'admin', does: 'Drain a queue (typed confirmation)' },
  'queue.clean': { role: 'admin', does: 'Clean finished jobs (typed confirmation)' },
  'queue.obliterate': { role: 'admin', does: 'Obliterate a queue (typed confirmation)' },
  'queue.integrity.repair': { role: 'admin', does: 'Run safe integrity repairs' },
  'user.sign-out-everywhere': { role: 'admin', does: "End every one of a user's sessions" },
  'notify.test': { role: 'admin', does: 'Send a test notification to every webhook' },
} as const satisfies Record<string, Permission>;

export type ActionName = keyof typeof ACTION_PERMISSIONS;

export function roleOfAction(action: ActionName): Role {
  return ACTION_PERMISSIONS[action].role;
}

/** What a bulk action or a selection does to each job, and the role each kind needs. */
export const BULK_ACTION_PERMISSIONS = {
  retry: { role: 'operator', does: 'Bulk or selection: retry jobs' },
  promote: { role: 'operator', does: 'Bulk or selection: promote delayed jobs' },
  remove: { role: 'admin', does: 'Bulk or selection: remove jobs' },
} as const satisfies Record<string, Permission>;

/** Reads that need more than `viewer`, named by what they show. */
export const READ_PERMISSIONS = {
  'audit log': { role: 'operator', does: 'Read the audit log' },
  notifications: { role: 'operator', does: 'See the notification settings and muted queues' },
  'integrity check': { role: 'admin', does: "Check a queue's integrity (a full walk)" },
  users: { role: 'admin', does: 'See the configured users' },
} as const satisfies Record<string, Permission>;

export type ReadName = keyof typeof READ_PERMISSIONS;
