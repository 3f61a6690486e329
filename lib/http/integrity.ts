/**
 * The integrity page's contract (docs/integrity.md, "Console page"): GET …/integrity answers one
 * budgeted checker call, POST …/integrity one check-and-repair step. Invariants are keyed by
 * their code as text, so an invariant the checker adds shows up without a contract change.
 */
import { z } from 'zod';

/**
 * The checker's resume token, `<phase>:<a>:<b>:<scan cursor>`
 * (engine/admin/redis/integrity/cursor.ts).
 */
const integrityCursorSchema = z
  .string()
  .max(100)
  .regex(/^\d+:\d+:\d+:\d+$/, 'not an integrity cursor');

/** Ids and keys examined per request: the engine's default, and a ceiling per request. */
const INTEGRITY_PAGE = { defaultBudget: 10_000, maxBudget: 50_000 } as const;

const budgetSchema = z.coerce.number().int().min(1).max(INTEGRITY_PAGE.maxBudget);

/** GET query. */
export const integrityQuerySchema = z.strictObject({
  cursor: integrityCursorSchema.optional(),
  budget: budgetSchema.optional(),
});

/** POST body. */
export const integrityRepairBodySchema = z.strictObject({
  cursor: integrityCursorSchema.optional(),
  budget: z.number().int().min(1).max(INTEGRITY_PAGE.maxBudget).optional(),
});

const integrityReportSchema = z.strictObject({
  clean: z.boolean(),
  counts: z.record(z.string(), z.number().int().min(0)),
  samples: z.record(z.string(), z.array(z.string())),
  scanned: z.number().int().min(0),
  unverified: z.number().int().min(0),
  cursor: integrityCursorSchema.optional(),
});
export type IntegrityReportBody = z.infer<typeof integrityReportSchema>;

/** GET …/integrity: one checker call, and the invariants a repair step can fix. */
export const integrityCheckResponseSchema = z.strictObject({
  report: integrityReportSchema,
  repairable: z.array(z.string()),
});
export type IntegrityCheckResponse = z.infer<typeof integrityCheckResponseSchema>;

const integrityRepairSchema = z.strictObject({
  code: z.string(),
  jobId: z.string().nullable(),
  action: z.string(),
  applied: z.boolean(),
  skipped: z.string().optional(),
});
export type IntegrityRepair = z.infer<typeof integrityRepairSchema>;

/** POST …/integrity: the step's report (before its repairs), its repairs, the next cursor. */
export const integrityRepairResponseSchema = z.strictObject({
  report: integrityReportSchema,
  repairs: z.array(integrityRepairSchema),
  cursor: integrityCursorSchema.nullable(),
});
export type IntegrityRepairResponse = z.infer<typeof integrityRepairResponseSchema>;
