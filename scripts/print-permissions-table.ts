/** Prints the role table (lib/permissions-table.ts) to paste into docs/console.md and docs/security.md. */
import { permissionsTable } from '../lib/permissions-table';

process.stdout.write(permissionsTable());
