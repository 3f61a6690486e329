/**
 * One Lua command as engine/scripts/registry.generated.ts holds it (generated from
 * `lua/<name>-<numberOfKeys>.lua` by scripts/generate-script-registry.ts).
 */
export interface ScriptDefinition<
  Name extends string = string,
  Keys extends readonly string[] = readonly string[],
> {
  readonly name: Name;
  readonly numberOfKeys: Keys['length'];
  /** What each of KEYS[1..numberOfKeys] is, named as in the script's header. */
  readonly keys: Keys;
  /** The script with every `--- @include` inlined (each include once). */
  readonly lua: string;
}
