/**
 * Checks a job's options against their declarations (option-schema.ts) and says what is wrong
 * in one sentence for a ValidationError: an unknown name is named with the names known at that
 * place; a value that is neither of a union's forms gets the message of the form it was meant
 * to be.
 *
 * The check runs on every add, so it parses only the options given, field by field, with the
 * same declarations and rules as jobOptionsSchema: parsing the whole object walks all its
 * fields and made adds about a third slower (docs/engine-package.md, Job options).
 */
import { z } from 'zod';
import {
  CROSS_FIELD_RULES,
  JOB_OPTION_FIELDS,
  REFUSED_JOB_OPTIONS,
  REFUSED_OPTION_FIELDS,
  type JobsOptions,
} from './option-schema';

type Issue = z.core.$ZodIssue;

/** The object schema at `path` of the options (through optional and union wrappers). */
function objectAt(path: readonly PropertyKey[]): z.ZodObject | undefined {
  let schema: z.ZodType | undefined = z.object(JOB_OPTION_FIELDS);
  for (const key of path) {
    const object = findObject(schema);
    schema = object?.shape[key as string] as z.ZodType | undefined;
  }
  return findObject(schema);
}

function findObject(schema: z.ZodType | undefined): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodOptional) return findObject(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) {
    for (const option of schema.options) {
      const object = findObject(option as z.ZodType);
      if (object) return object;
    }
  }
  return undefined;
}

function unknownKeys(issue: Issue & { code: 'unrecognized_keys' }): string {
  const where = issue.path.length === 0 ? 'job option' : `${issue.path.join('.')} field`;
  const known = Object.keys(objectAt(issue.path)?.shape ?? {});
  return `Unknown ${where} "${issue.keys[0]}" (known: ${known.join(', ')})`;
}

/**
 * The issue to report from a union none of whose forms matched: the one of the form whose type
 * the value had (a `{ type: 'x', jitter: 2 }` backoff is an object gone wrong, not a number).
 */
function fromUnion(issue: Issue & { code: 'invalid_union' }): Issue {
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && !(first.code === 'invalid_type' && first.path.length === 0)) {
      return { ...first, path: [...issue.path, ...first.path] } as Issue;
    }
  }
  return issue;
}

/** One sentence for the most useful of `issues` (an unknown name first: usually a typo). */
function describeOptionIssues(issues: readonly Issue[]): string {
  let issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0]!;
  while (issue.code === 'invalid_union') {
    const inner = fromUnion(issue);
    if (inner === issue) break;
    issue = inner;
  }
  if (issue.code === 'unrecognized_keys') return unknownKeys(issue);
  return issue.message;
}

const FIELDS: Readonly<Record<string, z.ZodType>> = JOB_OPTION_FIELDS;
const KNOWN = Object.keys(JOB_OPTION_FIELDS).join(', ');

/** A refused name, or one nested in an option object (`deduplication.keepLastIfActive`). */
function refusal(name: string, value: unknown): string | undefined {
  const reason = REFUSED_JOB_OPTIONS[name];
  if (reason) return `Unsupported job option "${name}": ${reason}`;
  const refusedFields = REFUSED_OPTION_FIELDS[name];
  if (!refusedFields || value === null || typeof value !== 'object') return undefined;
  for (const field in refusedFields) {
    if ((value as Record<string, unknown>)[field] !== undefined) {
      return `Unsupported ${name} field "${field}": ${refusedFields[field]}`;
    }
  }
  return undefined;
}

/**
 * What is wrong with `opts` (canonical names, flat spellings already rewritten), or undefined.
 * A name given as undefined counts as not given.
 */
export function jobOptionsProblem(opts: Record<string, unknown>): string | undefined {
  // Names first: an unknown one is usually a typo, whatever else is wrong.
  for (const name in opts) {
    const value = opts[name];
    if (value === undefined) continue;
    const refused = refusal(name, value);
    if (refused) return refused;
    if (!(name in FIELDS)) return `Unknown job option "${name}" (known: ${KNOWN})`;
  }
  for (const name in opts) {
    const value = opts[name];
    if (value === undefined) continue;
    const checked = FIELDS[name]!.safeParse(value);
    if (!checked.success) {
      const issues = checked.error.issues.map((issue) => ({
        ...issue,
        path: [name, ...issue.path],
      })) as Issue[];
      return describeOptionIssues(issues);
    }
  }
  for (const rule of CROSS_FIELD_RULES) {
    const message = rule(opts as JobsOptions);
    if (message) return message;
  }
  return undefined;
}
