/**
 * Fails when any import cycle exists among the repository's own modules, type-only imports
 * included (a cycle of types still ties two modules' meaning together and makes load order
 * matter once a value import joins it). Uses dpdm's analysis of the TypeScript sources.
 */
import { spawnSync } from 'node:child_process';

const GLOBS = [
  'engine/**/*.ts',
  'lib/**/*.ts',
  'lib/**/*.tsx',
  'components/**/*.ts',
  'components/**/*.tsx',
  'app/**/*.ts',
  'app/**/*.tsx',
  'runner/**/*.ts',
  'config/**/*.ts',
  'launcher/**/*.ts',
  'demo/**/*.ts',
  'bench/**/*.ts',
];

const run = spawnSync(
  process.execPath,
  [
    'node_modules/dpdm/lib/bin/dpdm.js',
    '--no-tree',
    '--no-warning',
    '--no-progress',
    '--exit-code',
    'circular:1',
    ...GLOBS,
  ],
  { encoding: 'utf8' },
);
if (run.status !== 0) {
  process.stderr.write(run.stdout + run.stderr);
  process.stderr.write('check-import-cycles: import cycles found (listed above)\n');
  process.exit(1);
}
console.log('check-import-cycles: no import cycles');
