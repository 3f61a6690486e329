/**
 * Turns the first problem zod found in a job's options (option-schema.ts) into one sentence
 * for a ValidationError: an unknown name is named with the names known at that place; a value
 * that is neither of a union's forms gets the message of the form it was meant to be.
 */
import { z } from 'zod';
import { JOB_OPTION_FIELDS } from './option-schema';

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
export function describeOptionIssues(issues: readonly Issue[]): string {
  let issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0]!;
  while (issue.code === 'invalid_union') {
    const inner = fromUnion(issue);
    if (inner === issue) break;
    issue = inner;
  }
  if (issue.code === 'unrecognized_keys') return unknownKeys(issue);
  return issue.message;
}
