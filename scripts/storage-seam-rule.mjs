// The storage seam rule of scripts/check-engine-imports.mjs. Redis is one storage behind the
// interfaces of engine/backend/ (engine/backend/storage.ts): only the Redis storage's places may
// import ioredis, run scripts (engine/backend/redis/run-script.ts) or use the script registry
// (engine/scripts/). Everything else reaches storage through the interfaces, so it works on any
// storage (the memory one proves it). Files elsewhere that must still reach into Redis are listed
// below, each with the reason.
//
// A file outside those places may not:
// - import `ioredis` (even for types: the engine's classes never name an ioredis type);
// - import values from engine/backend/redis/ or engine/scripts/ (types may be named: the
//   public API names RedisClient);
// - import engine/backend/redis/connection.ts (the Redis connection helpers) but for types: Queue and Worker
//   name ConnectionOptions and RedisClient in their public API.

import path from 'node:path';
import ts from 'typescript';

/** Where Redis lives (relative to the engine directory, `/`-separated). */
export const REDIS_PLACES = ['backend/redis/', 'scripts/', 'admin/redis/'];

/** Files outside REDIS_PLACES that may reach into them, and why. */
export const REDIS_ALLOWED = {
  'backend/default-storage.ts': 'picks the Redis storage as the default one',
  'index.ts': 'the public surface exports redisStorage and the connection types',
  'internals.ts': "the test-only entry exposes internals to the repository's tests",
  'connection.ts': 're-exports the Redis connection helpers for the admin',
  'cluster-slots.ts': "Redis Cluster's hash-slot rules, applied by the Redis storage and the admin",
  'history/history-writer.ts':
    "re-exports the Redis history writer for the admin's backlog sampler",
};

/**
 * The admin's files whose inspection is Redis by nature (SCAN, CLIENT LIST, pipelined reads,
 * its own scripts). They belong in engine/admin/redis/; they stay where they are while others
 * edit engine/admin, and are listed here instead.
 */
export const ADMIN_REDIS_FILES = [
  'admin/backlog-sampler.ts',
  'admin/bulk.ts',
  'admin/cluster-reads.ts',
  'admin/flow-graph.ts',
  'admin/flow-node-info.ts',
  'admin/integrity/check-queue-integrity.ts',
  'admin/integrity/events-cap.ts',
  'admin/integrity/key-checks.ts',
  'admin/integrity/key-scan.ts',
  'admin/integrity/probe.ts',
  'admin/integrity/queue-node.ts',
  'admin/integrity/repair-run.ts',
  'admin/integrity/repair.ts',
  'admin/integrity/state-walk.ts',
  'admin/job-cancel-state.ts',
  'admin/job-window.ts',
  'admin/lease.ts',
  'admin/live-events.ts',
  'admin/prometheus/console-metrics.ts',
  'admin/prometheus/queue-export.ts',
  'admin/prometheus/queue-snapshot.ts',
  'admin/queues.ts',
  'admin/worker-heartbeats.ts',
  'admin/workers.ts',
];

/** The imports of `text`, each with whether it brings values (not only types) and its line. */
export function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (node, specifier, valued) =>
    found.push({
      specifier,
      valued,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    });
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node, node.moduleSpecifier.text, !typeOnly);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.every((element) => element.isTypeOnly));
      add(node, node.moduleSpecifier.text, !typeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, true);
    } else if (
      ts.isCallExpression(node) &&
      node.arguments.length > 0 &&
      ts.isStringLiteral(node.arguments[0]) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node, node.arguments[0].text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Where a relative import of `file` lands, relative to the engine directory (or null). */
function targetOf(specifier, file, engineDir) {
  if (!specifier.startsWith('.')) return null;
  const target = path.relative(engineDir, path.resolve(path.dirname(file), specifier));
  return target.split(path.sep).join('/');
}

function inRedisPlace(relative) {
  return REDIS_PLACES.some((place) => relative.startsWith(place) || `${relative}/` === place);
}

/** Why the import breaks the seam rule, or null. `relativeFile`: the file, engine-relative. */
export function seamViolation(ref, file, relativeFile, engineDir) {
  // The built package (dist/) bundles every part, Redis's included.
  if (relativeFile.startsWith('dist/')) return null;
  if (inRedisPlace(relativeFile)) return null;
  if (relativeFile in REDIS_ALLOWED || ADMIN_REDIS_FILES.includes(relativeFile)) return null;
  if (ref.specifier === 'ioredis' || ref.specifier.startsWith('ioredis/')) {
    return 'only the Redis storage (engine/backend/redis/) imports ioredis';
  }
  const target = targetOf(ref.specifier, file, engineDir);
  if (target === null) return null;
  if (ref.valued && inRedisPlace(target)) {
    return 'reaches into the Redis storage: go through the storage interfaces (engine/backend/)';
  }
  if (ref.valued && (target === 'connection' || target === 'connection.ts')) {
    return 'uses the Redis connection helpers: connections are the storage’s (StorageConnection)';
  }
  return null;
}
