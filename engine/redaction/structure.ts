/**
 * Which members of an object or array the redaction hides whole. Besides a member under a
 * sensitive key, secrets ride in two shapes where the key is data, not a property name:
 *
 * - name/value pairs: `{ name: 'Authorization', value }` (HAR, fetch header lists),
 *   `{ key: 'DB_PASSWORD', value }` (Postman, env lists), `{ ParameterKey, ParameterValue }`:
 *   when a name-like member names a sensitive key, the value-like members are hidden;
 * - tuples: `['x-api-key', value]` (header entries, `Object.entries` output): when the first
 *   item of a two-item array names a sensitive key, the second is hidden.
 */
import { isSensitiveKey, isSensitiveKeyName, normalizeKey, type RedactionRules } from './rules';

const NAME_MEMBERS = new Set(['name', 'key', 'header', 'field', 'param', 'parameter', 'variable']);
const VALUE_MEMBERS = new Set(['value', 'val', 'values']);

function isNameMember(key: string): boolean {
  const normalized = normalizeKey(key);
  return NAME_MEMBERS.has(normalized) || normalized.endsWith('name') || normalized.endsWith('key');
}

function isValueMember(key: string): boolean {
  const normalized = normalizeKey(key);
  return (
    VALUE_MEMBERS.has(normalized) || normalized.endsWith('value') || normalized.endsWith('values')
  );
}

/** True when `node` is a name/value pair whose name is a sensitive key. */
function isSensitivePair(node: Record<string, unknown>, rules: RedactionRules): boolean {
  for (const key in node) {
    if (Object.hasOwn(node, key) && isNameMember(key) && isSensitiveKeyName(node[key], rules)) {
      return true;
    }
  }
  return false;
}

/** A test of which members of `node` (an object or array) are hidden whole. */
export function hiddenMembers(
  node: object,
  rules: RedactionRules,
): (key: string | number) => boolean {
  if (Array.isArray(node)) {
    const tuple = node.length === 2 && isSensitiveKeyName(node[0], rules);
    return (index) => tuple && index === 1;
  }
  const pair = isSensitivePair(node as Record<string, unknown>, rules);
  return (key) => {
    const name = String(key);
    return isSensitiveKey(name, rules) || (pair && isValueMember(name));
  };
}
