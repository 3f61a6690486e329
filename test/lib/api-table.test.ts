/**
 * The API table of docs/console.md is the one generated from lib/api-routes/ (itself held to
 * app/api/ by api-routes.test.ts), so a route cannot be added, or change its role, undocumented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionOfRoute, API_ROUTES } from '../../lib/api-routes';
import { apiTable } from '../../lib/api-table';
import { ACTION_PERMISSIONS } from '../../lib/permissions';
import { tableAt, unpadded } from '../helpers/markdown';

describe('the API table', () => {
  const generated = unpadded(apiTable().trimEnd()).split('\n');

  it('is the one in docs/console.md', () => {
    expect(tableAt(readFileSync('docs/console.md', 'utf8'), generated[0]!)).toEqual(generated);
  });

  it('has only POST mutations, as the text around it says', () => {
    const others = API_ROUTES.filter((route) => actionOfRoute(route) && route.method !== 'POST');
    expect(others).toEqual([]);
  });

  it('has a route for every audit action of the role table', () => {
    const routed = new Set<string | null>(API_ROUTES.map(actionOfRoute));
    expect(Object.keys(ACTION_PERMISSIONS).filter((action) => !routed.has(action))).toEqual([]);
  });
});
