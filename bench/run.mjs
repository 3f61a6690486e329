#!/usr/bin/env node
// `npm run bench`: nothing here runs TypeScript directly, so bench/main.ts and bench/child.ts are
// bundled with rolldown (packages stay external and load from node_modules) into a temporary
// directory, then main runs with node, the repository as working directory. The engine is one
// of those packages: `oxmq` is built first (npm run build:engine) and loaded as a team's service
// loads it, from its dist/. Arguments are passed through: `npm run bench -- --quick`.
// bench/cluster-child.ts is bundled too, for `npm run bench -- --cluster`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '..');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-bench-'));

async function bundle(entry) {
  const result = await build({
    input: path.join(benchDir, entry),
    platform: 'node',
    cwd: repoRoot,
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    logLevel: 'warn',
    write: false,
    output: { format: 'cjs' },
  });
  const file = path.join(outDir, entry.replace(/\.ts$/, '.cjs'));
  writeFileSync(file, result.output[0].code);
  return file;
}

const built = spawnSync('npm', ['run', '--silent', 'build:engine'], {
  cwd: repoRoot,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);

let code = 1;
try {
  const [mainFile, childFile, clusterChildFile] = await Promise.all([
    bundle('main.ts'),
    bundle('child.ts'),
    bundle('cluster-child.ts'),
  ]);
  code = await new Promise((resolve) => {
    const main = spawn(process.execPath, [mainFile, ...process.argv.slice(2)], {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_PATH: path.join(repoRoot, 'node_modules'),
        OXMQ_BENCH_CHILD: childFile,
        OXMQ_BENCH_CLUSTER_CHILD: clusterChildFile,
      },
      stdio: 'inherit',
    });
    main.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(code);
