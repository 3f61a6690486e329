/**
 * The role tables in docs/console.md and docs/security.md are the one withRoute enforces
 * (lib/permissions.ts), so the docs cannot promise a rule the console does not keep.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_PERMISSIONS } from '../../lib/permissions';
import { permissionsTable } from '../../lib/permissions-table';
import { unpadded } from '../helpers/markdown';

describe('the role table', () => {
  const table = unpadded(permissionsTable().trimEnd());

  for (const file of ['docs/console.md', 'docs/security.md']) {
    it(`is the one in ${file}`, () => {
      expect(unpadded(readFileSync(file, 'utf8'))).toContain(table);
    });
  }

  it('leaves every removal to admins', () => {
    const removals = Object.entries(ACTION_PERMISSIONS).filter(([action]) =>
      /remove|drain|clean|obliterate/.test(action),
    );
    expect(removals.length).toBeGreaterThan(3);
    for (const [action, { role }] of removals) expect(role, action).toBe('admin');
  });
});
