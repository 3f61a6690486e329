/**
 * Builds the installable `oxmq` package from this directory (docs/engine-package.md): the public
 * entries `.` and `./admin` as ESM and CommonJS with their type declarations, and the sandbox
 * child as a script of its own, since sandboxed processors start it as a separate process.
 */
import { defineConfig } from 'tsdown';

const shared = {
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
  fixedExtension: true,
  // Bundled code still finds the sandbox child next to itself through __dirname, in ESM too.
  shims: true,
  checks: { legacyCjs: false, pluginTimings: false },
  logLevel: 'warn',
} as const;

export default defineConfig([
  {
    ...shared,
    entry: { index: 'index.ts', admin: 'admin/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
  },
  {
    ...shared,
    entry: { 'sandbox-child': 'sandbox/child-main.ts' },
    format: ['cjs'],
    dts: false,
    clean: false,
  },
]);
