#!/usr/bin/env node
// Guards the dependency direction app/ + components/ -> engine/ -> lua/.
// No file under engine/ may import React, Next.js or console code (app/, components/, lib/), nor
// the bullmq / Bull-Board packages, which are test peers only, nor any OpenTelemetry package but
// the API (an SDK is the application's choice; the engine only records through the API).
//
// Usage: node scripts/check-engine-imports.mjs [engineDir]
//   engineDir defaults to <repo>/engine. Relative and `@/` imports are resolved against the
//   parent of engineDir, which is where app/ and components/ are expected to live.
// Exit codes: 0 clean (or no engine dir), 1 forbidden imports found, 2 usage error.
//
// It also holds the storage seam: only Redis's folders (engine/backend/redis/, engine/scripts/,
// engine/admin/redis/) import ioredis, run scripts or use the script registry
// (scripts/storage-seam-rule.mjs).
//
// Imports are extracted with TypeScript's own pre-processor (ts.preProcessFile), so comments and
// strings are ignored and static, type-only, re-export, `import x = require()`, dynamic
// `import()` and `require()` forms are all seen.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { importsOf, seamViolation } from './storage-seam-rule.mjs';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];
const SKIP_DIRS = new Set(['node_modules', '.next', '.oxmq', 'coverage']);

/** Package specifiers that engine/ must never import (the package itself or any subpath). */
const FORBIDDEN_PACKAGES = [
  { name: 'react', why: 'engine/ must not depend on React' },
  { name: 'react-dom', why: 'engine/ must not depend on React' },
  { name: 'next', why: 'engine/ must not depend on Next.js' },
  { name: 'bullmq', why: 'bullmq is a test peer (devDependency), never a runtime dependency' },
];
/** Scopes whose every package is forbidden, but for the names in `allowed`. */
const FORBIDDEN_SCOPES = [
  { scope: '@bull-board', why: 'Bull-Board is a test peer (devDependency) only', allowed: [] },
  {
    scope: '@opentelemetry',
    why: 'engine/ uses @opentelemetry/api only; SDKs and exporters belong to the application',
    allowed: ['@opentelemetry/api'],
  },
];
/** Top-level directories of the repo that engine/ must not reach into. */
const FORBIDDEN_DIRS = ['app', 'components', 'lib'];

function matchesPackage(specifier, name) {
  return specifier === name || specifier.startsWith(`${name}/`);
}

function isInside(target, dir) {
  const rel = path.relative(dir, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Returns the reason `specifier` (imported from `file`) is forbidden, or null. */
function violation(specifier, file, root) {
  for (const { name, why } of FORBIDDEN_PACKAGES) {
    if (matchesPackage(specifier, name)) return why;
  }
  for (const { scope, why, allowed } of FORBIDDEN_SCOPES) {
    if (!specifier.startsWith(`${scope}/`)) continue;
    if (allowed.some((name) => matchesPackage(specifier, name))) continue;
    return why;
  }

  let target = null;
  if (specifier.startsWith('.')) {
    target = path.resolve(path.dirname(file), specifier);
  } else if (specifier.startsWith('@/')) {
    target = path.resolve(root, specifier.slice(2)); // tsconfig paths: "@/*" -> "./*"
  } else if (path.isAbsolute(specifier)) {
    target = path.resolve(specifier);
  } else if (FORBIDDEN_DIRS.some((dir) => matchesPackage(specifier, dir))) {
    target = path.resolve(root, specifier); // tsconfig baseUrl "." makes `app/x` resolve here
  }
  if (target === null) return null;
  for (const dir of FORBIDDEN_DIRS) {
    if (isInside(target, path.join(root, dir))) {
      return `resolves into ${dir}/: engine/ must not import console code`;
    }
  }
  return null;
}

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* walk(full);
    } else if (entry.isFile() && SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) {
      yield full;
    }
  }
}

function lineOf(text, pos) {
  let line = 1;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** A path relative to the working directory when it is inside it, else absolute. */
function display(p) {
  const rel = path.relative(process.cwd(), p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

function main(argv) {
  const scriptDir = path.dirname(fileURLToPath(import.meta.url));
  const repoRoot = path.resolve(scriptDir, '..');
  const args = argv.filter((a) => a !== '--');
  if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
    console.error('usage: node scripts/check-engine-imports.mjs [engineDir]');
    return 2;
  }
  const explicit = args.length === 1;
  const engineDir = explicit ? path.resolve(args[0]) : path.join(repoRoot, 'engine');
  const root = path.dirname(engineDir);
  const shown = display(engineDir);

  if (!fs.existsSync(engineDir)) {
    if (explicit) {
      console.error(`check-engine-imports: ${shown} does not exist`);
      return 2;
    }
    console.log(`check-engine-imports: no ${shown}/ directory yet, nothing to check`);
    return 0;
  }
  if (!fs.statSync(engineDir).isDirectory()) {
    console.error(`check-engine-imports: ${shown} is not a directory`);
    return 2;
  }

  const problems = [];
  let fileCount = 0;
  for (const file of walk(engineDir)) {
    fileCount++;
    const text = fs.readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const ref of importedFiles) {
      const why = violation(ref.fileName, file, root);
      if (why !== null) {
        const where = `${display(file)}:${lineOf(text, ref.pos)}`;
        problems.push(`  ${where}  imports '${ref.fileName}' (${why})`);
      }
    }
    const relativeFile = path.relative(engineDir, file).split(path.sep).join('/');
    for (const ref of importsOf(file, text)) {
      const why = seamViolation(ref, file, relativeFile, engineDir);
      if (why !== null) {
        problems.push(`  ${display(file)}:${ref.line}  imports '${ref.specifier}' (${why})`);
      }
    }
  }

  if (problems.length > 0) {
    console.error(`check-engine-imports: ${problems.length} forbidden import(s) in ${shown}/:`);
    for (const p of problems) console.error(p);
    console.error(
      'engine/ may not import react, react-dom, next, app/, components/ or lib/ code, bullmq or ' +
        '@bull-board/* (the layers: app/ and components/ -> engine/ -> lua/); outside ' +
        'engine/backend/redis/, engine/scripts/ and engine/admin/redis/, it reaches storage ' +
        'through its interfaces (scripts/storage-seam-rule.mjs).',
    );
    return 1;
  }
  console.log(`check-engine-imports: ${fileCount} file(s) in ${shown}/ OK`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
