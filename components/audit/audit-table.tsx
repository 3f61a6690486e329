'use client';
import { useState } from 'react';
import type { AuditKind } from '@/lib/api-types';
import { useAuditPage } from './use-audit';

const KINDS: { kind: AuditKind; label: string }[] = [
  { kind: 'accepted', label: 'Actions' },
  { kind: 'refused', label: 'Refused requests' },
];

export function AuditTable() {
  const [kind, setKind] = useState<AuditKind>('accepted');
  // The cursors of the pages visited, so "Newer" can step back.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const { data, error, isPending } = useAuditPage(kind, before);
  const tabs = (
    <p role="group" aria-label="Audit stream">
      {KINDS.map((option) => (
        <button
          key={option.kind}
          type="button"
          aria-pressed={kind === option.kind}
          onClick={() => {
            setKind(option.kind);
            setCursors([null]);
          }}
        >
          {option.label}
        </button>
      ))}
    </p>
  );
  if (isPending)
    return (
      <>
        {tabs}
        <p aria-live="polite">Loading audit log…</p>
      </>
    );
  if (error) {
    return (
      <>
        {tabs}
        <p role="alert" className="notice error">
          Could not load the audit log: {error.message}
        </p>
      </>
    );
  }
  return (
    <>
      {tabs}
      {data.entries.length === 0 ? (
        <p>{kind === 'accepted' ? 'No mutations recorded yet.' : 'No refused requests.'}</p>
      ) : (
        <table>
          <caption className="visually-hidden">Audit log, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Outcome</th>
              <th scope="col">Parameters</th>
            </tr>
          </thead>
          <tbody>
            {data.entries.map((entry) => (
              <tr key={entry.id}>
                <td>
                  <time dateTime={new Date(entry.at).toISOString()}>
                    {new Date(entry.at).toLocaleString()}
                  </time>
                </td>
                <td>
                  {entry.actor} ({entry.role})
                </td>
                <td>{entry.action}</td>
                <td>{entry.target}</td>
                <td>
                  {entry.outcome} · {entry.status}
                  {entry.code && ` · ${entry.code}`}
                  {entry.suppressed ? ` · ${entry.suppressed} more refused before, not listed` : ''}
                </td>
                <td>
                  <code>{JSON.stringify(entry.params)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors((list) => list.slice(0, -1))}
        >
          Newer
        </button>{' '}
        <button
          type="button"
          disabled={data.next === null}
          onClick={() => data.next && setCursors((list) => [...list, data.next])}
        >
          Older
        </button>
      </p>
    </>
  );
}
