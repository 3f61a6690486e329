/** The `minutes` query parameter of the metrics routes: clamped to the engine's cap. */
import 'server-only';
import { z } from 'zod';
import { METRICS_LIMITS } from 'oxmq/admin';

export const minutesQuery = z.object({
  minutes: z.coerce
    .number()
    .int()
    .min(1)
    .default(METRICS_LIMITS.defaultMinutes)
    .transform((minutes) => Math.min(minutes, METRICS_LIMITS.maxMinutes)),
});
