/**
 * The role table of docs/console.md and docs/security.md, generated from lib/permissions.ts (the rule
 * withRoute enforces). test/lib/permissions-table.test.ts checks both documents hold it; print
 * it with `node --import tsx scripts/print-permissions-table.ts` after changing a role.
 */
import { ACTION_PERMISSIONS, BULK_ACTION_PERMISSIONS, READ_PERMISSIONS } from './permissions';
import { hasRole, type Role } from './roles';

const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

interface Row {
  does: string;
  audit: string;
  role: Role;
}

function rows(): Row[] {
  const reads: Row[] = [
    { does: 'Read queues, jobs, logs, flows, metrics and workers', audit: '–', role: 'viewer' },
    ...Object.values(READ_PERMISSIONS).map(({ does, role }) => ({ does, audit: '–', role })),
  ];
  const actions = Object.entries(ACTION_PERMISSIONS).map(([audit, { does, role }]) => ({
    does,
    audit: `\`${audit}\``,
    role,
  }));
  const bulk = Object.values(BULK_ACTION_PERMISSIONS).map(({ does, role }) => ({
    does,
    audit: '`jobs.bulk.create`, `jobs.selection`',
    role,
  }));
  const byRole = (a: Row, b: Row) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role);
  return [...reads.sort(byRole), ...actions.sort(byRole), ...bulk.sort(byRole)];
}

export function permissionsTable(): string {
  const lines = [
    '| What | Audit action | viewer | operator | admin |',
    '| --- | --- | --- | --- | --- |',
    ...rows().map(
      (row) =>
        `| ${row.does} | ${row.audit} | ${ROLES.map((role) => (hasRole(role, row.role) ? 'yes' : 'no')).join(' | ')} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
