// The storage seam rule of scripts/check-engine-imports.mjs. Redis is one storage behind the
// interfaces of engine/backend/ (engine/backend/storage.ts). Three folders are Redis's places,
// and only they may import ioredis, run scripts (engine/backend/redis/run-script.ts) or use the
// script registry (engine/scripts/):
// - engine/backend/redis/: the Redis storage;
// - engine/scripts/: the Lua script registry and loader;
// - engine/admin/redis/: the admin's reads and writes that are Redis by nature (SCAN, CLIENT
//   LIST, pipelined reads, its own scripts, the integrity checker, the Prometheus snapshot).
// Everything else reaches storage through the interfaces, so it works on any storage (the memory
// one proves it). The rule goes by folder: a new file is judged by where it is put.
//
// A file outside those places may not:
// - import `ioredis` (even for types: the engine's classes never name an ioredis type);
// - import values from engine/backend/redis/ or engine/scripts/ (types may be named: the
//   public API names RedisClient and ConnectionOptions);
// - import values from engine/admin/redis/ unless it is in engine/admin/, whose API puts the
//   admin's Redis reads together (createAdmin, oxmq/admin).
// The few files that name the Redis storage without using it are listed in REDIS_WIRING.

import path from 'node:path';
import ts from 'typescript';

/** Where Redis lives (relative to the engine directory, `/`-separated). */
export const REDIS_PLACES = ['backend/redis/', 'scripts/', 'admin/redis/'];

/** The admin, which may import the values of its own Redis place (admin/redis/). */
const ADMIN = 'admin/';
const ADMIN_REDIS = 'admin/redis/';

/** Files outside REDIS_PLACES that name the Redis storage to expose or pick it, and why. */
export const REDIS_WIRING = {
  'backend/default-storage.ts': 'picks the Redis storage as the default one',
  'index.ts': 'the public surface exports redisStorage, maskRedisUrl and the connection types',
  'internals.ts': "the test-only entry exposes internals to the repository's tests",
};

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

function inPlace(relative, place) {
  return relative.startsWith(place) || `${relative}/` === place;
}

function inRedisPlace(relative) {
  return REDIS_PLACES.some((place) => inPlace(relative, place));
}

/** Why the import breaks the seam rule, or null. `relativeFile`: the file, engine-relative. */
export function seamViolation(ref, file, relativeFile, engineDir) {
  // The built package (dist/) bundles every part, Redis's included.
  if (relativeFile.startsWith('dist/')) return null;
  if (inRedisPlace(relativeFile)) return null;
  if (relativeFile in REDIS_WIRING) return null;
  if (ref.specifier === 'ioredis' || ref.specifier.startsWith('ioredis/')) {
    return 'only engine/backend/redis/, engine/scripts/ and engine/admin/redis/ import ioredis';
  }
  const target = targetOf(ref.specifier, file, engineDir);
  if (target === null || !ref.valued) return null;
  if (inPlace(target, ADMIN_REDIS)) {
    if (inPlace(relativeFile, ADMIN)) return null;
    return "uses the admin's Redis reads (engine/admin/redis/): only the admin puts them together";
  }
  if (inRedisPlace(target)) {
    return 'reaches into the Redis storage: go through the storage interfaces (engine/backend/)';
  }
  return null;
}
