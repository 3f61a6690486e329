/** GET /api/audit: a page of the audit log, newest first. */
import { z } from 'zod';

export type AuditKind = 'accepted' | 'refused';
const auditOutcomeSchema = z.enum(['ok', 'denied', 'invalid', 'error']);

const auditEntrySchema = z.strictObject({
  id: z.string(),
  /** ms since the epoch, from the entry id. */
  at: z.number(),
  actor: z.string(),
  role: z.string(),
  action: z.string(),
  target: z.string(),
  /** The request's route parameters and body as sent, redacted. */
  params: z.unknown(),
  outcome: auditOutcomeSchema,
  status: z.number(),
  code: z.string().optional(),
  suppressed: z.number().optional(),
});

export const auditListResponseSchema = z.strictObject({
  entries: z.array(auditEntrySchema),
  /** Cursor for the next (older) page, null at the end. */
  next: z.string().nullable(),
});
export type AuditListResponse = z.infer<typeof auditListResponseSchema>;
