/**
 * Inside this repository the engine is imported by its package name and resolved to its
 * TypeScript source, as tsconfig.json's `paths` do for tsc, tsx and Next: `oxmq` and
 * `oxmq/admin` (the package's public entries) and `oxmq/internals` (test-only, not exported by
 * the built package; see engine/internals.ts). The built package itself is tested from outside
 * the repository by test/package/.
 */
import path from 'node:path';

const engine = path.resolve(import.meta.dirname, '..', '..', 'engine');

export const engineAliases = [
  { find: /^oxmq$/, replacement: path.join(engine, 'index.ts') },
  { find: /^oxmq\/admin$/, replacement: path.join(engine, 'admin', 'index.ts') },
  { find: /^oxmq\/internals$/, replacement: path.join(engine, 'internals.ts') },
];
