/**
 * `npm run audit` (run by .ci/run): `npm audit --omit=dev` on the runtime dependencies, failing on
 * a high or critical advisory unless `.ci/audit-allowlist.json` lists it with a reason and an
 * expiry date (an expired entry no longer counts). When the registry's audit endpoint cannot be
 * reached (an offline machine, a registry mirror without it), the check says so loudly and
 * passes, unless OXMQ_AUDIT_REQUIRED=1, where it fails: CI that can reach the endpoint sets it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  advisoriesOf,
  auditUnavailable,
  judge,
  parseAllowList,
  type Advisory,
} from './audit/judge';

function describe(advisory: Advisory): string {
  return `  ${advisory.severity.padEnd(8)} ${advisory.package}: ${advisory.title} (${advisory.id}, ${advisory.url})`;
}

function main(): number {
  const root = path.resolve(__dirname, '..');
  const allowList = parseAllowList(
    JSON.parse(readFileSync(path.join(root, '.ci', 'audit-allowlist.json'), 'utf8')),
  );
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  let report: unknown;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    report = { message: (run.stderr || run.error?.message || 'npm audit printed no JSON').trim() };
  }
  const unavailable = auditUnavailable(report);
  if (unavailable !== undefined) {
    const required = process.env.OXMQ_AUDIT_REQUIRED === '1';
    console.log(
      `npm audit could not run: ${unavailable}\n` +
        `  the runtime dependencies were NOT checked for advisories` +
        (required ? ' (OXMQ_AUDIT_REQUIRED=1: failing)' : ' (set OXMQ_AUDIT_REQUIRED=1 to fail)'),
    );
    return required ? 1 : 0;
  }
  const verdict = judge(advisoriesOf(report), allowList, new Date().toISOString().slice(0, 10));
  for (const entry of verdict.expired)
    console.log(`allow-list entry ${entry.id} (${entry.package}) expired on ${entry.expires}`);
  if (verdict.other.length > 0) console.log('advisories below high (not failing):');
  for (const advisory of verdict.other) console.log(describe(advisory));
  if (verdict.allowed.length > 0) console.log('allow-listed (see .ci/audit-allowlist.json):');
  for (const advisory of verdict.allowed) console.log(describe(advisory));
  if (verdict.blocking.length > 0) {
    console.log('high or critical advisories in runtime dependencies:');
    for (const advisory of verdict.blocking) console.log(describe(advisory));
    console.log('upgrade, or allow-list with a reason and an expiry in .ci/audit-allowlist.json');
    return 1;
  }
  console.log('npm audit: no high or critical advisory in the runtime dependencies');
  return 0;
}

process.exit(main());
