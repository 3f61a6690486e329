/**
 * The console's redaction rules: engine/admin/redaction.ts's defaults plus OXMQ_REDACT_KEYS
 * (additive: configuring names never turns a default off). The rules themselves live in the
 * engine's admin layer because its search and bulk filters match against the same redacted view
 * the routes answer (lib/server/oxmq.ts gives these rules to the admin object, which applies
 * them to every read that carries job text: engine/admin/create-admin.ts).
 */
import 'server-only';
import { redactionRules as rulesWith, type RedactionRules } from 'oxmq/admin';
import { getEnv } from './env';

export type { RedactionRules } from 'oxmq/admin';

let cached: { extra: readonly string[]; rules: RedactionRules } | undefined;

export function redactionRules(): RedactionRules {
  const extra = getEnv().OXMQ_REDACT_KEYS;
  if (cached?.extra !== extra) cached = { extra, rules: rulesWith(extra) };
  return cached.rules;
}

/** The names and words the job page lists as redacted. */
export function redactedKeyNames(rules: RedactionRules = redactionRules()): string[] {
  return [...rules.names, ...rules.words];
}
