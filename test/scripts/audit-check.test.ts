/**
 * `npm run audit` as CI runs it (`node --import tsx scripts/audit-check.ts`), with a stand-in
 * `npm` first on PATH that prints a given `npm audit --json` answer: the exit code and the
 * message for a blocking advisory, a clean report and an unreachable audit endpoint.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = mkdtempSync(path.join(os.tmpdir(), 'oxmq-audit-'));
const answer = path.join(bin, 'answer.json');
// Prints the prepared answer whatever the arguments, and exits as npm audit does (1 when it
// found something or failed).
writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\ncat "${answer}"\nexit 1\n`);
chmodSync(path.join(bin, 'npm'), 0o755);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function runAudit(npmAnswer: object, env: Record<string, string> = {}) {
  writeFileSync(answer, JSON.stringify(npmAnswer));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/audit-check.ts'], {
    cwd: repoRoot,
    // Next's types make NODE_ENV a required key of ProcessEnv; the script reads no NODE_ENV.
    env: {
      NODE_ENV: 'test' as const,
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: os.tmpdir(),
      ...env,
    },
    encoding: 'utf8',
  });
  return { code: run.status, output: run.stdout + run.stderr };
}

const criticalReport = {
  auditReportVersion: 2,
  vulnerabilities: {
    parser: {
      name: 'parser',
      severity: 'critical',
      via: [
        {
          source: 1001,
          name: 'parser',
          title: 'Prototype pollution',
          url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc',
          severity: 'critical',
          range: '<2.0.0',
        },
      ],
    },
  },
};

describe('npm run audit', () => {
  it('fails on a critical advisory in a runtime dependency, naming it', () => {
    const { code, output } = runAudit(criticalReport);
    expect(code).toBe(1);
    expect(output).toContain('critical parser: Prototype pollution (GHSA-aaaa-bbbb-cccc');
  });

  it('passes on a clean report', () => {
    const { code, output } = runAudit({ auditReportVersion: 2, vulnerabilities: {} });
    expect(code).toBe(0);
    expect(output).toContain('no high or critical advisory');
  });

  it('passes, loudly, when the audit endpoint cannot be reached; fails when required', () => {
    const unreachable = {
      message: '405 Method Not Allowed - POST /-/npm/v1/security/advisories/bulk',
    };
    const lenient = runAudit(unreachable);
    expect(lenient.code).toBe(0);
    expect(lenient.output).toContain('were NOT checked for advisories');
    expect(runAudit(unreachable, { OXMQ_AUDIT_REQUIRED: '1' }).code).toBe(1);
  });
});
