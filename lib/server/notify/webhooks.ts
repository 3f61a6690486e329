/**
 * The webhooks notifications go to (OXMQ_NOTIFY_WEBHOOKS): a JSON array of
 * `{"url": "https://…", "format": "json" | "slack", "name"?: "…"}`. A webhook URL often is its
 * own secret (a Slack incoming webhook's path is the credential), so the setting is `secret`
 * (config/known-settings.ts) and no message, answer, log line or audit entry ever shows a URL:
 * they name a webhook by its label (its `name`, else its number and host).
 */
import { z } from 'zod';
import { isHttpUrl } from '../http-url';

const WEBHOOK_FORMATS = ['json', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface Webhook {
  readonly url: string;
  readonly format: WebhookFormat;
  /** How pages, logs and the audit log name the webhook: never the URL. */
  readonly label: string;
}

/** More would make one problem a storm of requests; ten covers a team's channels. */
const MAX_WEBHOOKS = 10;

// Messages never quote a value: the URL is the secret.
const webhookSchema = z.strictObject({
  url: z.string().trim().refine(isHttpUrl, 'url must be an http:// or https:// URL'),
  format: z.enum(WEBHOOK_FORMATS, { error: 'format must be "json" or "slack"' }).default('json'),
  name: z
    .string()
    .trim()
    .min(1, 'name must not be empty')
    .max(64, 'name must be at most 64 characters')
    .refine((name) => !/\p{Cc}/u.test(name), 'name must be one line of text')
    .optional(),
});

/** The label of webhook number `index` (0-based): its name, else its number and host. */
function webhookLabel(url: string, index: number, name?: string): string {
  if (name) return name;
  let host = '?';
  try {
    host = new URL(url).host;
  } catch {
    // Validated before; a label never fails.
  }
  return `webhook ${index + 1} (${host})`;
}

/** OXMQ_NOTIFY_WEBHOOKS as the console's schema (lib/server/env.ts) parses it: [] when unset. */
export const webhooksSetting = z
  .string()
  .default('[]')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON array of {"url", "format"} objects',
      });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(webhookSchema, { error: 'must be a JSON array of {"url", "format"} objects' })
      .max(MAX_WEBHOOKS, `list at most ${MAX_WEBHOOKS} webhooks`),
  )
  .transform((list): Webhook[] =>
    list.map((hook, index) => ({
      url: hook.url,
      format: hook.format,
      label: webhookLabel(hook.url, index, hook.name),
    })),
  )
  .refine(
    (list) => new Set(list.map((hook) => hook.label)).size === list.length,
    'webhook names must differ',
  );
