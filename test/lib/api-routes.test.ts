/**
 * lib/api-routes/ (the docs' API table) against the routes themselves: every method every file
 * under app/api/ exports is listed, nothing else is, and each handler enforces what the list
 * says, as withRoute recorded it (lib/server/api.ts routeAccessOf), whichever helper built it.
 */
import { describe, expect, it, vi } from 'vitest';
import { API_ROUTES, HTTP_METHODS, type ApiRoute } from '../../lib/api-routes';
import { ACTION_PERMISSIONS, READ_PERMISSIONS } from '../../lib/permissions';
import { routeAccessOf, type RouteAccess } from '../../lib/server/api';
import { apiRouteFiles } from '../helpers/api-route-files';

// The marker package throws outside a React server bundle; here the routes are only inspected.
vi.mock('server-only', () => ({}));

const key = (method: string, path: string) => `${method} ${path}`;

/** What withRoute should have recorded for this entry; undefined for a route outside it. */
function expectedAccess({ access }: ApiRoute): RouteAccess | undefined {
  if (access === 'no session') return undefined;
  if (access === 'viewer') return { role: 'viewer' };
  if ('read' in access) return { role: READ_PERMISSIONS[access.read].role };
  return { role: ACTION_PERMISSIONS[access.action].role, action: access.action };
}

describe('the API route list', () => {
  it('lists each method and path once', () => {
    const keys = API_ROUTES.map((route) => key(route.method, route.path));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it('is every exported handler of app/api/, each with the access it enforces', async () => {
    const handlers = new Map<string, unknown>();
    for (const { file, path } of apiRouteFiles()) {
      const module = (await import(file)) as Record<string, unknown>;
      for (const method of HTTP_METHODS) {
        if (method in module) handlers.set(key(method, path), module[method]);
      }
    }
    const listed = new Map(API_ROUTES.map((route) => [key(route.method, route.path), route]));
    // A handler missing from lib/api-routes/, or an entry whose route is gone.
    expect({
      unlisted: [...handlers.keys()].filter((k) => !listed.has(k)),
      gone: [...listed.keys()].filter((k) => !handlers.has(k)),
    }).toEqual({ unlisted: [], gone: [] });
    for (const [k, handler] of handlers) {
      expect(routeAccessOf(handler), k).toEqual(expectedAccess(listed.get(k)!));
    }
  }, 60_000);
});
