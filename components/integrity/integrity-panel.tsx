'use client';
/**
 * The integrity page's body (docs/integrity.md, "Console page"): counts and samples per invariant
 * of the walk so far, "Continue" while a cursor is left, and for admins (not in read-only mode)
 * "Repair safe findings" behind a confirmation, listing what each repair did.
 */
import Link from 'next/link';
import { useState } from 'react';
import type { IntegrityRepair } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { useCanMutate } from '../session/session-context';
import { useIntegrity } from './use-integrity';

export function IntegrityPanel({ prefix, name }: { prefix: string; name: string }) {
  const walk = useIntegrity(prefix, name);
  const canRepair = useCanMutate('admin');
  const [confirming, setConfirming] = useState(false);
  const { total } = walk;
  const findings = total ? Object.entries(total.counts).filter(([, count]) => count > 0) : [];
  const repairable = findings.some(([code]) => walk.repairable.includes(code));
  const queueHref = `/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}`;

  return (
    <div className="integrity-page" data-queue={name}>
      <p>
        <Link href={queueHref}>← Queue {name}</Link>
      </p>
      <h1>
        <span className="prefix">{prefix}:</span>
        {name} integrity
      </h1>
      {walk.error && (
        <p role="alert" className="notice error">
          {walk.error}
        </p>
      )}
      <section className="panel" aria-labelledby="integrity-heading" data-testid="integrity">
        <h2 id="integrity-heading">Check</h2>
        {total === null ? (
          <p aria-live="polite">{walk.pending ? 'Checking…' : 'No check yet.'}</p>
        ) : (
          <>
            <p aria-live="polite" data-testid="integrity-status">
              {walk.done
                ? total.clean
                  ? 'Walk done: clean.'
                  : `Walk done: ${findings.length} invariant(s) broken.`
                : total.clean
                  ? 'Nothing found so far.'
                  : `Found so far: ${findings.length} invariant(s) broken.`}{' '}
              Scanned so far: {formatCount(total.scanned)} ids and keys
              {total.unverified > 0 && `, ${formatCount(total.unverified)} unverified`}.
            </p>
            <table className="integrity-table">
              <thead>
                <tr>
                  <th scope="col">Invariant</th>
                  <th scope="col">Count</th>
                  <th scope="col">Samples</th>
                  <th scope="col">Repair</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(total.counts).map(([code, count]) => (
                  <tr key={code} data-invariant={code} className={count > 0 ? 'warn' : undefined}>
                    <th scope="row">
                      <code>{code}</code>
                    </th>
                    <td data-testid={`count-${code}`}>{formatCount(count)}</td>
                    <td>{(total.samples[code] ?? []).join(', ')}</td>
                    <td>{walk.repairable.includes(code) ? 'safe repair' : 'report-only'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
        <div className="action-row">
          {!walk.done && total !== null && (
            <button
              type="button"
              className="primary"
              disabled={walk.pending !== null}
              onClick={walk.continueWalk}
            >
              Continue
            </button>
          )}
          <button type="button" disabled={walk.pending !== null} onClick={walk.restart}>
            Check again
          </button>
          {canRepair && repairable && (
            <button
              type="button"
              className="danger"
              aria-expanded={confirming}
              disabled={walk.pending !== null}
              onClick={() => setConfirming(!confirming)}
            >
              Repair safe findings…
            </button>
          )}
        </div>
        {confirming && canRepair && (
          <div className="typed-confirm" role="group" aria-label="Confirm repair">
            <p>
              Walks the whole queue again and applies only the repairs that cannot lose data or run
              a job twice; each one is re-checked when it is applied. Report-only findings are left
              as they are. Every step is written to the audit log.
            </p>
            <button
              type="button"
              className="danger"
              disabled={walk.pending !== null}
              onClick={() => {
                setConfirming(false);
                walk.repair();
              }}
            >
              Apply safe repairs
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        )}
        {walk.pending === 'repair' && <p aria-live="polite">Repairing…</p>}
      </section>
      {walk.repairs && <RepairList repairs={walk.repairs} incomplete={walk.repairIncomplete} />}
    </div>
  );
}

function RepairList({ repairs, incomplete }: { repairs: IntegrityRepair[]; incomplete: boolean }) {
  const applied = repairs.filter((repair) => repair.applied).length;
  return (
    <section className="panel" aria-labelledby="repairs-heading" data-testid="integrity-repairs">
      <h2 id="repairs-heading">Repairs</h2>
      <p aria-live="polite">
        {applied} applied, {repairs.length - applied} not applied
        {incomplete && '; stopped before the end of the walk: repair again to go on'}.
      </p>
      {repairs.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Invariant</th>
              <th scope="col">Job</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {repairs.map((repair, index) => (
              <tr key={index} data-applied={repair.applied}>
                <td>
                  <code>{repair.code}</code>
                </td>
                <td>{repair.jobId ?? '—'}</td>
                <td>
                  {repair.applied ? `Applied: ${repair.action}` : `Skipped: ${repair.skipped}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
