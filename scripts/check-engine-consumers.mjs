#!/usr/bin/env node
// Guards how the rest of the repository reaches the engine: only by its package name, as a team
// that installed `oxmq` would. `oxmq` and `oxmq/admin` are the package's public entries
// (engine/package.json); `oxmq/internals` is a test-only entry (engine/internals.ts) allowed
// under test/ alone. A path into engine/ (relative, `@/engine/...`, absolute) or any other
// `oxmq/<subpath>` is refused, so nothing outside engine/ can lean on a module the built
// package does not export.
//
// Usage: node scripts/check-engine-consumers.mjs [repoRoot]
// Exit codes: 0 clean, 1 forbidden imports found, 2 usage error.
//
// Imports are extracted with TypeScript's pre-processor (ts.preProcessFile): static, type-only,
// re-export, dynamic import() and require() forms, with comments and strings ignored.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const SKIP_DIRS = new Set(['node_modules', '.next', '.oxmq', '.git', 'coverage', 'dist']);
const PUBLIC_ENTRIES = new Set(['oxmq', 'oxmq/admin']);
const TEST_ONLY_ENTRY = 'oxmq/internals';
/** The packaging test's consumer project: it imports the installed package, outside the repo. */
const OUTSIDE_PROJECTS = ['test/package/consumer'];

function* walk(dir, root) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIP_DIRS.has(entry.name)) continue;
      if (dir === root && entry.name === 'engine') continue;
      if (OUTSIDE_PROJECTS.includes(path.relative(root, full).split(path.sep).join('/'))) continue;
      yield* walk(full, root);
    } else if (entry.isFile() && SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) {
      yield full;
    }
  }
}

function isInside(target, dir) {
  const rel = path.relative(dir, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Why `specifier`, imported from `file`, is refused, or null when it is fine. */
export function violation(specifier, file, root) {
  const engineDir = path.join(root, 'engine');
  if (specifier === 'oxmq' || specifier.startsWith('oxmq/')) {
    if (PUBLIC_ENTRIES.has(specifier)) return null;
    if (specifier === TEST_ONLY_ENTRY) {
      return isInside(file, path.join(root, 'test'))
        ? null
        : `${TEST_ONLY_ENTRY} is for the repository's tests only`;
    }
    return 'the package exports only oxmq and oxmq/admin';
  }
  let target = null;
  if (specifier.startsWith('.')) target = path.resolve(path.dirname(file), specifier);
  else if (specifier.startsWith('@/')) target = path.resolve(root, specifier.slice(2));
  else if (path.isAbsolute(specifier)) target = path.resolve(specifier);
  else if (specifier === 'engine' || specifier.startsWith('engine/')) {
    target = path.resolve(root, specifier); // tsconfig baseUrl "." resolves bare `engine/x`
  }
  if (target !== null && isInside(target, engineDir)) {
    return 'reaches into engine/ by path; import oxmq or oxmq/admin';
  }
  return null;
}

function lineOf(text, pos) {
  return text.slice(0, pos).split('\n').length;
}

function main(argv) {
  const args = argv.filter((a) => a !== '--');
  if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
    console.error('usage: node scripts/check-engine-consumers.mjs [repoRoot]');
    return 2;
  }
  const scriptDir = path.dirname(fileURLToPath(import.meta.url));
  const root = args.length === 1 ? path.resolve(args[0]) : path.resolve(scriptDir, '..');
  const problems = [];
  let fileCount = 0;
  for (const file of walk(root, root)) {
    fileCount++;
    const text = fs.readFileSync(file, 'utf8');
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const why = violation(ref.fileName, file, root);
      if (why !== null) {
        const where = `${path.relative(root, file)}:${lineOf(text, ref.pos)}`;
        problems.push(`  ${where}  imports '${ref.fileName}' (${why})`);
      }
    }
  }
  if (problems.length > 0) {
    console.error(`check-engine-consumers: ${problems.length} forbidden import(s):`);
    for (const p of problems) console.error(p);
    return 1;
  }
  console.log(`check-engine-consumers: ${fileCount} file(s) outside engine/ OK`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
