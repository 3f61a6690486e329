/**
 * Loading one processor module: import it, check its exports (queue, options, default) and
 * report anything wrong as a ProcessorLoadError that names the file and the reason.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { Job } from 'oxmq';
import {
  describeOptionIssues,
  PROCESSOR_OPTIONS_SCHEMA,
  type ProcessorOptions,
} from './processor-options';

/* eslint-disable @typescript-eslint/no-explicit-any -- the job data type is the module's own */
/** The shape of a processor module (its exports). */
export interface ProcessorModule<DataType = any, ResultType = any> {
  /** The queue the module serves (required). */
  queue: string;
  options?: ProcessorOptions;
  /** The processor (required): `export default async function (job) { ... }`. */
  default: (
    job: Job<DataType, ResultType>,
    token?: string,
    signal?: AbortSignal,
  ) => Promise<ResultType>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export interface LoadedProcessor {
  /** Absolute path of the module. */
  readonly file: string;
  readonly queue: string;
  readonly options: ProcessorOptions;
  readonly process: ProcessorModule['default'];
}

export type ProcessorLoadErrorCode = 'IMPORT_FAILED' | 'INVALID_EXPORTS' | 'INVALID_OPTIONS';

export class ProcessorLoadError extends Error {
  override readonly name = 'ProcessorLoadError';

  constructor(
    readonly code: ProcessorLoadErrorCode,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

const QUEUE_MESSAGE = 'export const queue = "<name>" is required: a non-empty string without ":"';

const exportsSchema = z.object({
  queue: z.string({ error: QUEUE_MESSAGE }).regex(/^[^:]+$/, QUEUE_MESSAGE),
  default: z.custom<ProcessorModule['default']>((value) => typeof value === 'function', {
    error: 'export default async function (job) { ... } is required',
  }),
  options: z.unknown().optional(),
});

/** Imports `file` (any .ts/.mts/.cts/.js/.mjs/.cjs: tsx compiles TypeScript) and validates it. */
export async function loadProcessorModule(file: string): Promise<LoadedProcessor> {
  const absolute = path.resolve(file);
  let namespace: unknown;
  try {
    namespace = await import(pathToFileURL(absolute).href);
  } catch (error) {
    throw new ProcessorLoadError(
      'IMPORT_FAILED',
      absolute,
      `could not be loaded: ${describe(error)}`,
    );
  }

  const exported = exportsOf(namespace);
  const shape = exportsSchema.safeParse(exported);
  if (!shape.success) {
    const reasons = shape.error.issues.map((issue) => issue.message);
    throw new ProcessorLoadError('INVALID_EXPORTS', absolute, reasons.join('; '));
  }
  const options = PROCESSOR_OPTIONS_SCHEMA.safeParse(shape.data.options ?? {});
  if (!options.success) {
    throw new ProcessorLoadError(
      'INVALID_OPTIONS',
      absolute,
      describeOptionIssues(options.error).join('; '),
    );
  }
  return {
    file: absolute,
    queue: shape.data.queue,
    options: options.data,
    process: shape.data.default,
  };
}

/**
 * The module's exports whatever its format: an ES module namespace, or a CommonJS
 * `module.exports = fn` with `queue`/`options` set on the function (import() then gives the
 * function as `default` and its properties as named exports, but not always both).
 */
function exportsOf(namespace: unknown): Record<string, unknown> {
  if (namespace === null || typeof namespace !== 'object') return {};
  const record = namespace as Record<string, unknown>;
  const fallback = record.default;
  if (typeof fallback === 'function') {
    const attached = fallback as unknown as Record<string, unknown>;
    return {
      ...record,
      queue: record.queue ?? attached.queue,
      options: record.options ?? attached.options,
    };
  }
  // A CommonJS module exporting an object (`module.exports = { queue, default }`).
  if (fallback !== null && typeof fallback === 'object' && !('queue' in record))
    return fallback as Record<string, unknown>;
  return record;
}

/** The first lines of an error: enough to find a syntax error, without a full stack. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.split('\n').slice(0, 4).join(' ').trim();
  return `${error.name}: ${message}`;
}
