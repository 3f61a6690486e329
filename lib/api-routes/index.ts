/**
 * Every route under app/api/, by method and path, with who may call it and what it does: the
 * list the API table of docs/console.md is generated from (lib/api-table.ts). It is written by
 * hand because a route file cannot export anything but its handlers, and
 * test/lib/api-routes.test.ts holds it to the routes: each method of each route file is here,
 * nothing else is, and each handler enforces (through withRoute) the access written here.
 */
import { ACTION_PERMISSIONS, READ_PERMISSIONS, type ActionName } from '../permissions';
import type { Role } from '../roles';
import { CONSOLE_ROUTES } from './console';
import { JOB_ROUTES } from './job';
import { QUEUE_ROUTES } from './queue';
import type { ApiRoute } from './types';

export { HTTP_METHODS, type ApiRoute } from './types';

export const API_ROUTES: readonly ApiRoute[] = [...CONSOLE_ROUTES, ...QUEUE_ROUTES, ...JOB_ROUTES];

/** The weakest role that may call the route; null for one that needs no session. */
export function roleOfRoute({ access }: ApiRoute): Role | null {
  if (access === 'no session') return null;
  if (access === 'viewer') return 'viewer';
  return 'read' in access
    ? READ_PERMISSIONS[access.read].role
    : ACTION_PERMISSIONS[access.action].role;
}

/** The audit action of a mutation; null for a read. */
export function actionOfRoute({ access }: ApiRoute): ActionName | null {
  return typeof access === 'object' && 'action' in access ? access.action : null;
}
