/**
 * Redaction of sensitive values in job-derived text: data, options, progress, return values,
 * failure reasons, stack traces, log lines. The console shows, searches and filters only this
 * redacted view, so a secret stored in a job can neither be read nor probed through it; the
 * worker runner's log lines and /health, and the failure text on job spans, pass through it too.
 *
 * Keys (rules.ts): a key is sensitive when its normalized name contains one of the `names`, or
 * one of its words is one of the `words`.
 *
 * Structures: a member under a sensitive key is hidden whole; so is the value of a name/value
 * pair naming a sensitive key and the second item of a header tuple (structure.ts).
 *
 * Strings: a string that holds a JSON object or array (bounded size and nesting) is parsed and
 * redacted as a structure; any other string is free text (text.ts): pairs with a sensitive key
 * lose their value, URL credentials their secret, private key blocks their body.
 *
 * Every pass is linear in the size of its input: the engine's admin layer runs it over every job
 * a search examines.
 */
import { DEFAULT_REDACTION, REDACTED, REDACTION_LIMITS, type RedactionRules } from './rules';
import { hiddenMembers } from './structure';
import { redactText } from './text';

export {
  DEFAULT_REDACT_NAMES,
  DEFAULT_REDACT_WORDS,
  DEFAULT_REDACTION,
  isSensitiveKey,
  normalizeKey,
  REDACTED,
  REDACTION_LIMITS,
  redactionRules,
  type RedactionRules,
} from './rules';
export { redactText } from './text';

const TOO_DEEP = '[too deep]';

/** A copy of `value` with every sensitive value replaced by REDACTED (see the file comment). */
export function redactValue(value: unknown, rules: RedactionRules = DEFAULT_REDACTION): unknown {
  return walk(value, rules, 0, 0);
}

function walk(node: unknown, rules: RedactionRules, depth: number, nesting: number): unknown {
  if (typeof node === 'string') return redactString(node, rules, depth, nesting);
  if (node === null || typeof node !== 'object') return node;
  if (depth >= REDACTION_LIMITS.maxDepth) return TOO_DEEP;
  const hidden = hiddenMembers(node, rules);
  if (Array.isArray(node)) {
    return node.map((item, i) => (hidden(i) ? REDACTED : walk(item, rules, depth + 1, nesting)));
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    out[key] = hidden(key) ? REDACTED : walk(child, rules, depth + 1, nesting);
  }
  return out;
}

/** A string: JSON inside it is redacted by key, anything else as free text. */
export function redactString(
  text: string,
  rules: RedactionRules = DEFAULT_REDACTION,
  depth = 0,
  nesting = 0,
): string {
  const parsed = parseEmbeddedJson(text, nesting);
  if (parsed !== undefined) {
    const before = JSON.stringify(parsed);
    const after = JSON.stringify(walk(parsed, rules, depth + 1, nesting + 1));
    // Unchanged JSON keeps its own formatting; changed JSON is shown re-serialized.
    return after === before ? text : after;
  }
  return redactText(text, rules);
}

function parseEmbeddedJson(text: string, nesting: number): object | undefined {
  if (nesting >= REDACTION_LIMITS.maxJsonStringNesting) return undefined;
  if (text.length > REDACTION_LIMITS.maxJsonStringChars) return undefined;
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * New data from an edit of redacted data: wherever the edit still holds what the redacted view
 * showed (REDACTED where the stored value was hidden whole, or a string equal to the stored
 * string's redacted form), the stored value at the same path is kept, so an admin can change one field without
 * erasing the secrets they were never shown.
 */
export function restoreRedacted(
  edited: unknown,
  stored: unknown,
  rules: RedactionRules = DEFAULT_REDACTION,
): unknown {
  const restore = (next: unknown, old: unknown, depth: number): unknown => {
    if (typeof next === 'string') {
      return typeof old === 'string' && next !== old && next === redactString(old, rules)
        ? old
        : next;
    }
    if (next === null || typeof next !== 'object' || depth >= REDACTION_LIMITS.maxDepth) {
      return next;
    }
    if (Array.isArray(next)) {
      const stored = Array.isArray(old) ? old : [];
      const hidden = hiddenMembers(stored, rules);
      return next.map((item, i) =>
        item === REDACTED && hidden(i) && i < stored.length
          ? stored[i]
          : restore(item, stored[i], depth + 1),
      );
    }
    const previous =
      old !== null && typeof old === 'object' && !Array.isArray(old)
        ? (old as Record<string, unknown>)
        : {};
    const hidden = hiddenMembers(previous, rules);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(next)) {
      out[key] =
        child === REDACTED && hidden(key) && Object.hasOwn(previous, key)
          ? previous[key]
          : restore(child, previous[key], depth + 1);
    }
    return out;
  };
  return restore(edited, stored, 0);
}
