'use client';
/**
 * The edit form of a scheduler: a cron pattern, or a number of ms for `every`. The server
 * validates with the engine's own rules and its message is shown by the panel.
 */
import { useState, type FormEvent } from 'react';
import type { SchedulerRow } from '@/lib/api-types';

export function SchedulerEditForm({
  row,
  busy,
  onSubmit,
}: {
  row: SchedulerRow;
  busy: boolean;
  onSubmit: (body: { every: number } | { pattern: string }) => void;
}) {
  const [value, setValue] = useState(row.every !== null ? String(row.every) : (row.pattern ?? ''));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = value.trim();
    if (text === '') return;
    onSubmit(/^\d+$/.test(text) ? { every: Number(text) } : { pattern: text });
  };
  return (
    <form className="limits-form" onSubmit={submit} aria-label={`Edit schedule of ${row.id}`}>
      <label>
        Cron pattern, or every (ms)
        <input value={value} onChange={(event) => setValue(event.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Save schedule
      </button>
    </form>
  );
}
