/**
 * Where a sandbox child's code lives and how Node must be started to run it. From source, the
 * child is the TypeScript entry child-main.ts and runs through tsx's loader; from the built
 * package it is the compiled sandbox-child.cjs beside the bundle, and tsx (an optional peer) is
 * loaded only when present, which is what a processor written in TypeScript needs. Paths are
 * resolved to absolute ones once, so a child starts the same from any working directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../errors';

/** tsx's hooks, for children that must load TypeScript. */
interface TsxHooks {
  /** file: URL of tsx's `--import` loader (ESM and CommonJS hooks), for child processes. */
  loaderUrl: string;
  /** file: URL of tsx's ESM register API, for worker threads (where `--import` does not apply). */
  esmApiUrl: string;
  /** Absolute path of tsx's CommonJS register API, for worker threads. */
  cjsApiPath: string;
}

export interface SandboxRuntime {
  /** Absolute path of the child's entry (child-main.ts from source, sandbox-child.cjs built). */
  entryFile: string;
  /** tsx's hooks, or null when tsx is not installed (then only JavaScript processors run). */
  tsx: TsxHooks | null;
}

const SOURCE_ENTRY = 'child-main.ts';
const BUILT_ENTRY = 'sandbox-child.cjs';

function findEntry(): string {
  // Beside this module: the source tree (tests, the runner) or the built package's dist/. Next's
  // server bundle keeps the repository layout under the working directory instead.
  const candidates = [
    path.join(__dirname, SOURCE_ENTRY),
    path.join(__dirname, BUILT_ENTRY),
    path.resolve(process.cwd(), 'engine', 'sandbox', SOURCE_ENTRY),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new ValidationError(`OxMQ sandbox entry not found (looked in ${candidates.join(', ')})`);
  }
  return found;
}

/** Narrows `exports[subpath].import.default` of a package.json without trusting its shape. */
function importTarget(exportsField: unknown, subpath: string): string | undefined {
  if (typeof exportsField !== 'object' || exportsField === null) return undefined;
  const entry = (exportsField as Record<string, unknown>)[subpath];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const conditions = (entry as Record<string, unknown>).import;
  if (typeof conditions === 'string') return conditions;
  if (typeof conditions !== 'object' || conditions === null) return undefined;
  const target = (conditions as Record<string, unknown>).default;
  return typeof target === 'string' ? target : undefined;
}

function findTsx(): TsxHooks | null {
  const bases = [__filename, path.join(process.cwd(), 'package.json')];
  for (const base of bases) {
    try {
      const requireFrom = createRequire(base);
      const packageJson = requireFrom.resolve('tsx/package.json');
      const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { exports?: unknown };
      const esmApi = importTarget(manifest.exports, './esm/api');
      if (!esmApi) continue;
      return {
        loaderUrl: pathToFileURL(requireFrom.resolve('tsx')).href,
        esmApiUrl: pathToFileURL(path.resolve(path.dirname(packageJson), esmApi)).href,
        cjsApiPath: requireFrom.resolve('tsx/cjs/api'),
      };
    } catch {
      // Not resolvable from this base: try the next one.
    }
  }
  return null;
}

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/i;

let cached: SandboxRuntime | undefined;

/**
 * Resolved once per process. Throws ValidationError when the child entry is missing, or when
 * `processorFile` (or the entry itself, from source) is TypeScript and tsx is not installed.
 */
export function sandboxRuntime(processorFile?: string): SandboxRuntime {
  if (!cached) {
    const entryFile = findEntry();
    cached = { entryFile, tsx: findTsx() };
  }
  if (cached.tsx === null) {
    if (TYPESCRIPT_FILE.test(cached.entryFile)) {
      throw new ValidationError('Sandboxed processors from source need the tsx package');
    }
    if (processorFile !== undefined && TYPESCRIPT_FILE.test(processorFile)) {
      throw new ValidationError(
        `Sandboxed processor ${processorFile} is TypeScript: install tsx (npm install tsx) or point to its compiled JavaScript`,
      );
    }
  }
  return cached;
}

/**
 * The parent's Node flags worth passing on to a child process: memory limits, source maps and
 * warning switches. Everything else is left out on purpose: loaders and `--require` hooks of the
 * parent (vitest's, or a second copy of tsx), `--conditions`, and inspector ports would change
 * how the child resolves modules or make it fail to start.
 */
const INHERITED_FLAGS = [
  '--max-old-space-size=',
  '--max-semi-space-size=',
  '--stack-size=',
  '--enable-source-maps',
  '--no-warnings',
  '--no-deprecation',
  '--trace-warnings',
  '--trace-uncaught',
];

export function childExecArgv(
  parentExecArgv: readonly string[],
  loaderUrl: string | null,
): string[] {
  const inherited = parentExecArgv.filter((flag) =>
    INHERITED_FLAGS.some((allowed) =>
      allowed.endsWith('=') ? flag.startsWith(allowed) : flag === allowed,
    ),
  );
  return loaderUrl === null ? inherited : [...inherited, '--import', loaderUrl];
}
