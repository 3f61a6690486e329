/**
 * Zod field schemas for settings. Every raw value is a string (the environment's type; the
 * loader turns config-file numbers and booleans into strings first), so each helper parses a
 * string, states what it expects in its message, and supplies the default when the value is unset.
 */
import { z } from 'zod';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const PORT_MESSAGE = 'must be a port number from 0 to 65535';

/** A TCP port, 0..65535 (0 = let the system pick a free one). */
export function portField(defaultPort: number) {
  return z
    .string()
    .trim()
    .regex(/^\d{1,5}$/, PORT_MESSAGE)
    .transform(Number)
    .refine((port) => port <= 65535, PORT_MESSAGE)
    .default(defaultPort);
}

const REDIS_URL_MESSAGE = 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379';

function redisUrl() {
  return z
    .string()
    .trim()
    .refine((value) => /^rediss?:\/\/\S+$/.test(value) && URL.canParse(value), REDIS_URL_MESSAGE);
}

/** A redis:// or rediss:// URL, with a default. */
export function redisUrlField(defaultUrl: string) {
  return redisUrl().default(defaultUrl);
}

/** A redis:// or rediss:// URL that may stay unset (e.g. the launcher's "embedded Redis"). */
export function optionalRedisUrlField() {
  return redisUrl().optional();
}

const BOOLEAN_MESSAGE = 'must be true, false, 1 or 0';

/** 'true' / 'false' / '1' / '0' (any case). Nothing looser: `yes` or `on` is a typo until proven otherwise. */
export function booleanField(defaultValue: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .refine((value) => ['true', 'false', '1', '0'].includes(value), BOOLEAN_MESSAGE)
    .transform((value) => value === 'true' || value === '1')
    .default(defaultValue);
}

const MS_MESSAGE = 'must be a whole number of milliseconds greater than 0';

/** A duration in milliseconds: a whole number > 0. */
export function positiveIntMsField(defaultMs: number) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, MS_MESSAGE)
    .transform(Number)
    .refine((ms) => ms > 0 && Number.isSafeInteger(ms), MS_MESSAGE)
    .default(defaultMs);
}

/** A pino level name. */
export function logLevelField(defaultLevel: LogLevel = 'info') {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }))
    .default(defaultLevel);
}

/** The items of a comma-separated setting, trimmed, empty ones dropped. */
function commaItems(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * A comma-separated list: items trimmed, empty items dropped, at least one left. `item` checks
 * each one (its message is prefixed with the offending item).
 */
export function commaListField(
  defaultList: readonly string[],
  item?: { test: (value: string) => boolean; message: string },
) {
  return z
    .string()
    .transform(commaItems)
    .superRefine((items, context) => {
      if (items.length === 0)
        context.addIssue({ code: 'custom', message: 'list at least one value' });
      for (const entry of items) {
        if (item && !item.test(entry))
          context.addIssue({ code: 'custom', message: `"${entry}" ${item.message}` });
      }
    })
    .default([...defaultList]);
}

const PREFIX_MESSAGE = 'must be a key prefix without spaces, * ? [ ] or \\';

/** A queue key prefix such as `bull` or `{payments}` (Redis Cluster hash tag). */
export function prefixField(defaultPrefix = 'bull') {
  return z
    .string()
    .trim()
    .regex(/^[^\s*?[\]\\]+$/, PREFIX_MESSAGE)
    .default(defaultPrefix);
}

/** A host name or address to listen on. */
export function hostField(defaultHost: string) {
  return z
    .string()
    .trim()
    .regex(/^[^\s/]+$/, 'must be a host name or IP address, e.g. 0.0.0.0 or 127.0.0.1')
    .default(defaultHost);
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

const HOST_PORT_MESSAGE = 'must be host:port (IPv6 as [address]:port), e.g. 10.0.0.5:6379';

/** `host:port` or `[ipv6]:port`, port 1..65535; undefined when it is neither. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/[\]@]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** A comma-separated list of `host:port` addresses (at least one), parsed; unset stays undefined. */
export function optionalHostPortListField() {
  return z
    .string()
    .transform(commaItems)
    .superRefine((items, context) => {
      if (items.length === 0)
        context.addIssue({ code: 'custom', message: 'list at least one host:port' });
      for (const entry of items) {
        if (parseHostPort(entry) === undefined)
          context.addIssue({ code: 'custom', message: `"${entry}" ${HOST_PORT_MESSAGE}` });
      }
    })
    .transform((items) => items.map((entry) => parseHostPort(entry) as HostPort))
    .optional();
}
