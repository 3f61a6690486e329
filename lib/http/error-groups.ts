/** GET …/error-groups: one call's failed jobs grouped by error; the page merges calls. */
import { z } from 'zod';

const errorGroupSchema = z.strictObject({
  signature: z.string(),
  count: z.number(),
  firstSeen: z.number(),
  lastSeen: z.number(),
  sample: z.strictObject({ id: z.string(), reason: z.string() }),
});
export type ErrorGroup = z.infer<typeof errorGroupSchema>;

const errorGroupTallySchema = z.strictObject({
  groups: z.array(errorGroupSchema),
  other: z.number(),
});
export type ErrorGroupTally = z.infer<typeof errorGroupTallySchema>;

export const errorGroupsResponseSchema = errorGroupTallySchema.extend({
  scanned: z.number(),
  from: z.number(),
  to: z.number(),
  total: z.number(),
  next: z.string().nullable(),
  tooLarge: z.number(),
});
export type ErrorGroupsResponse = z.infer<typeof errorGroupsResponseSchema>;
