/** Prints the API table (lib/api-table.ts) to paste into docs/console.md, then run prettier. */
import { apiTable } from '../lib/api-table';

process.stdout.write(apiTable());
