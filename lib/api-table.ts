/**
 * The API table of docs/console.md, generated from lib/api-routes/ (held to app/api/ by
 * test/lib/api-routes.test.ts), with roles from lib/permissions.ts like the role table.
 * test/lib/api-table.test.ts checks the document holds it; print it with
 * `node --import tsx scripts/print-api-table.ts` after changing a route.
 */
import { actionOfRoute, API_ROUTES, HTTP_METHODS, roleOfRoute, type ApiRoute } from './api-routes';

/** By path, then method: where a reader looks a route up, whatever order the list is in. */
function byPath(a: ApiRoute, b: ApiRoute): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return HTTP_METHODS.indexOf(a.method) - HTTP_METHODS.indexOf(b.method);
}

export function apiTable(routes: readonly ApiRoute[] = API_ROUTES): string {
  const lines = [
    '| Route | Method | Role | Audit action | What |',
    '| --- | --- | --- | --- | --- |',
    ...[...routes].sort(byPath).map((route) => {
      const action = actionOfRoute(route);
      return `| \`${route.path}\` | ${route.method} | ${roleOfRoute(route) ?? 'no session'} | ${action ? `\`${action}\`` : '–'} | ${route.summary} |`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
