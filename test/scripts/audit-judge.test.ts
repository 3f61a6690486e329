/**
 * The dependency audit's verdict (scripts/audit/judge.ts) on npm audit reports (the JSON of
 * `npm audit --json`, auditReportVersion 2): high and critical advisories fail unless
 * allow-listed with an expiry still ahead; npm's error object means "could not run".
 */
import { describe, expect, it } from 'vitest';
import { advisoriesOf, auditUnavailable, judge, parseAllowList } from '../../scripts/audit/judge';

function advisory(source: number, name: string, severity: string, ghsa: string) {
  return {
    source,
    name,
    dependency: name,
    title: `${name} flaw ${source}`,
    url: `https://github.com/advisories/${ghsa}`,
    severity,
    cwe: [],
    cvss: { score: 7.5, vectorString: null },
    range: '<9.9.9',
  };
}

const report = {
  auditReportVersion: 2,
  vulnerabilities: {
    parser: {
      name: 'parser',
      severity: 'critical',
      isDirect: false,
      via: [advisory(1001, 'parser', 'critical', 'GHSA-aaaa-bbbb-cccc')],
      effects: ['framework'],
      range: '<9.9.9',
      nodes: ['node_modules/parser'],
      fixAvailable: true,
    },
    // Vulnerable only through `parser`: not a second advisory.
    framework: {
      name: 'framework',
      severity: 'critical',
      isDirect: true,
      via: ['parser', advisory(1002, 'framework', 'moderate', 'GHSA-dddd-eeee-ffff')],
      effects: [],
      range: '*',
      nodes: ['node_modules/framework'],
      fixAvailable: false,
    },
    cookie: {
      name: 'cookie',
      severity: 'high',
      isDirect: false,
      via: [advisory(1003, 'cookie', 'high', 'GHSA-gggg-hhhh-jjjj')],
      effects: [],
      range: '<1.0.0',
      nodes: ['node_modules/cookie'],
      fixAvailable: true,
    },
  },
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 1, high: 1, critical: 2, total: 4 } },
};

const reason = 'only reachable from the build step, never with request data';

describe('dependency audit verdict', () => {
  it('fails on every high and critical advisory, once each, and reports the rest', () => {
    const verdict = judge(advisoriesOf(report), parseAllowList({ advisories: [] }), '2026-12-03');
    expect(verdict.blocking.map((entry) => [entry.id, entry.package, entry.severity])).toEqual([
      ['GHSA-aaaa-bbbb-cccc', 'parser', 'critical'],
      ['GHSA-gggg-hhhh-jjjj', 'cookie', 'high'],
    ]);
    expect(verdict.other.map((entry) => entry.id)).toEqual(['GHSA-dddd-eeee-ffff']);
  });

  it('lets an allow-listed advisory pass until its expiry, then fails it again', () => {
    const allowList = parseAllowList({
      advisories: [{ id: 'GHSA-gggg-hhhh-jjjj', package: 'cookie', reason, expires: '2027-01-31' }],
    });
    const before = judge(advisoriesOf(report), allowList, '2027-01-31');
    expect(before.allowed.map((entry) => entry.id)).toEqual(['GHSA-gggg-hhhh-jjjj']);
    expect(before.blocking.map((entry) => entry.id)).toEqual(['GHSA-aaaa-bbbb-cccc']);
    const after = judge(advisoriesOf(report), allowList, '2027-02-01');
    expect(after.blocking.map((entry) => entry.id)).toContain('GHSA-gggg-hhhh-jjjj');
    expect(after.expired.map((entry) => entry.id)).toEqual(['GHSA-gggg-hhhh-jjjj']);
  });

  it('matches the package too: an id allow-listed for another package does not count', () => {
    const allowList = parseAllowList({
      advisories: [{ id: 'GHSA-gggg-hhhh-jjjj', package: 'other', reason, expires: '2099-01-01' }],
    });
    expect(judge(advisoriesOf(report), allowList, '2026-12-03').blocking).toHaveLength(2);
  });

  it('refuses an allow-list entry without a reason, an expiry or a real id', () => {
    const entry = { id: 'GHSA-gggg-hhhh-jjjj', package: 'cookie', reason, expires: '2027-01-31' };
    expect(() => parseAllowList({ advisories: [{ ...entry, reason: 'fine' }] })).toThrow();
    expect(() => parseAllowList({ advisories: [{ ...entry, expires: 'soon' }] })).toThrow();
    expect(() => parseAllowList({ advisories: [{ ...entry, id: 'CVE-1' }] })).toThrow();
    expect(() => parseAllowList({ advisories: [{ ...entry, note: 'x' }] })).toThrow();
  });

  it('tells an audit that could not run from a clean one', () => {
    expect(auditUnavailable(report)).toBeUndefined();
    expect(auditUnavailable({ auditReportVersion: 2, vulnerabilities: {} })).toBeUndefined();
    expect(
      auditUnavailable({
        message:
          '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
        statusCode: 405,
      }),
    ).toMatch(/^405 Method Not Allowed/);
    expect(auditUnavailable({ error: { summary: 'getaddrinfo ENOTFOUND', detail: '' } })).toBe(
      'getaddrinfo ENOTFOUND',
    );
  });
});
