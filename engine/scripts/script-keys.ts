/**
 * Typed keys for the Lua commands: a script's KEYS are a tuple of exactly the length its header
 * in lua/ declares (engine/scripts/registry.generated.ts), so a call with a key too many or too
 * few, or a script name that does not exist, fails to compile instead of failing in Redis.
 */
import type { QueueKeys } from '../queue/keys';
import { SCRIPTS, type ScriptKeyNames } from './registry.generated';

export type ScriptName = keyof ScriptKeyNames;

type KeyTuple<Names extends readonly string[]> = { readonly [Index in keyof Names]: string };

/** Type-only: marks keys scriptKeys built for one script, so they cannot go to another. */
declare const builtFor: unique symbol;

/**
 * One Redis key per entry of the script's KEYS, in its header's order. A tuple literal fits; keys
 * from scriptKeys fit only the script they were built for (another may count as many keys, in
 * another order).
 */
export type ScriptKeys<Name extends ScriptName> = KeyTuple<ScriptKeyNames[Name]> & {
  readonly [builtFor]?: Name;
};

/** Header key names that are also a QueueKeys property holding that key. */
const QUEUE_KEY_PROPERTIES = [
  'base',
  'wait',
  'paused',
  'meta',
  'id',
  'delayed',
  'prioritized',
  'pc',
  'marker',
  'events',
  'active',
  'completed',
  'failed',
  'stalled',
  'stalledCheck',
  'limiter',
  'repeat',
  'waitingChildren',
] as const satisfies readonly (keyof QueueKeys)[];

type QueueKeyProperty = (typeof QUEUE_KEY_PROPERTIES)[number];
const QUEUE_KEY_SET: ReadonlySet<string> = new Set(QUEUE_KEY_PROPERTIES);

/** The keys of `Name` that are not one of the queue's own keys (a job's hash, a worker's record). */
export type OtherKeyNames<Name extends ScriptName> = Exclude<
  ScriptKeyNames[Name][number],
  QueueKeyProperty
>;

/**
 * A script's keys by the names its header gives them: every queue key (`wait`, `meta`,
 * `waitingChildren`, `base`, ...) from `queue`, the others from `others`, which must name each
 * of them (and is left out when there are none).
 */
export function scriptKeys<Name extends ScriptName>(
  name: Name,
  queue: QueueKeys,
  ...others: [OtherKeyNames<Name>] extends [never]
    ? []
    : [others: { readonly [Key in OtherKeyNames<Name>]: string }]
): ScriptKeys<Name> {
  const given: Readonly<Record<string, string>> = others[0] ?? {};
  const names: readonly string[] = SCRIPTS[name].keys;
  return names.map((key) => {
    const value = QUEUE_KEY_SET.has(key) ? queue[key as QueueKeyProperty] : given[key];
    if (value === undefined) throw new Error(`${name}: no value for its key ${key}`);
    return value;
  }) as unknown as ScriptKeys<Name>;
}
