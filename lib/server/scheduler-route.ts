/**
 * Route parameters shared by the schedulers and groups routes (…/schedulers/:schedulerId/<action>,
 * …/groups/:groupId/<action>); their refusals become answers in engine-errors.ts.
 */
import 'server-only';
import { z } from 'zod';
import { queueParams } from './queue-route';

export const schedulerParams = queueParams.extend({
  // Any string names a scheduler (`Q repeat:<id>`); actions only touch ones that exist.
  schedulerId: z.string().min(1).max(512),
});

export const groupParams = queueParams.extend({
  // The engine's own rule (validateGroupId); refused here before it reaches a key name.
  groupId: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.-]+$/, 'a group id is 1..128 characters of [A-Za-z0-9_.-]'),
});

export const schedulerTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:scheduler:${params.schedulerId ?? '?'}`;

export const groupTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:group:${params.groupId ?? '?'}`;
