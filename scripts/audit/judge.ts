/**
 * The verdict of the dependency audit (scripts/audit-check.ts): which advisories of an npm audit
 * report block (high or critical, not allow-listed), which the allow-list excuses until its
 * expiry, and whether the report is one at all (npm prints an error object when its audit
 * endpoint cannot be reached).
 */
import { z } from 'zod';

const BLOCKING = new Set(['high', 'critical']);

const advisorySchema = z.object({
  source: z.number(),
  name: z.string(),
  title: z.string(),
  url: z.string(),
  severity: z.string(),
  range: z.string().optional(),
});

/** The part of npm's audit report (auditReportVersion 2) this check reads. */
const reportSchema = z.object({
  vulnerabilities: z.record(
    z.string(),
    z.object({ via: z.array(z.union([z.string(), advisorySchema])) }),
  ),
});

const allowListSchema = z
  .object({
    advisories: z.array(
      z
        .object({
          /** The GHSA id (`GHSA-xxxx-xxxx-xxxx`) or npm's numeric advisory id, as a string. */
          id: z.string().regex(/^(GHSA(-[0-9a-z]{4}){3}|\d+)$/),
          package: z.string().min(1),
          reason: z.string().min(20, 'say why this advisory does not apply or cannot be fixed yet'),
          expires: z.iso.date(),
        })
        .strict(),
    ),
  })
  .strict();

export type AllowList = z.infer<typeof allowListSchema>;

export interface Advisory {
  id: string;
  package: string;
  severity: string;
  title: string;
  url: string;
}

export interface AuditVerdict {
  /** High or critical, not allow-listed: the check fails. */
  blocking: Advisory[];
  /** High or critical, allow-listed with an expiry still ahead. */
  allowed: Advisory[];
  /** Below high: reported, not failing. */
  other: Advisory[];
  /** Allow-list entries past their expiry (they no longer count). */
  expired: AllowList['advisories'];
}

export function parseAllowList(json: unknown): AllowList {
  return allowListSchema.parse(json);
}

/** Every advisory of the report once, by id (a package reached by several paths is listed once). */
export function advisoriesOf(report: unknown): Advisory[] {
  const parsed = reportSchema.parse(report);
  const byId = new Map<string, Advisory>();
  for (const vulnerability of Object.values(parsed.vulnerabilities)) {
    for (const via of vulnerability.via) {
      if (typeof via === 'string') continue; // Vulnerable through another package, listed itself.
      const id = /GHSA(-[0-9a-z]{4}){3}$/.exec(via.url)?.[0] ?? String(via.source);
      byId.set(id, {
        id,
        package: via.name,
        severity: via.severity,
        title: via.title,
        url: via.url,
      });
    }
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function judge(advisories: Advisory[], allowList: AllowList, today: string): AuditVerdict {
  const live = allowList.advisories.filter((entry) => entry.expires >= today);
  const verdict: AuditVerdict = {
    blocking: [],
    allowed: [],
    other: [],
    expired: allowList.advisories.filter((entry) => entry.expires < today),
  };
  for (const advisory of advisories) {
    if (!BLOCKING.has(advisory.severity)) verdict.other.push(advisory);
    else if (live.some((entry) => entry.id === advisory.id && entry.package === advisory.package))
      verdict.allowed.push(advisory);
    else verdict.blocking.push(advisory);
  }
  return verdict;
}

/** npm's JSON when the audit could not run: `{ message, statusCode }` or `{ error: { summary } }`. */
export function auditUnavailable(report: unknown): string | undefined {
  if (reportSchema.safeParse(report).success) return undefined;
  const shape = z
    .object({
      message: z.string().optional(),
      error: z.object({ summary: z.string().optional() }).optional(),
    })
    .safeParse(report);
  return (shape.success && (shape.data.message || shape.data.error?.summary)) || 'no audit report';
}
