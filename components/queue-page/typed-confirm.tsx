'use client';
/** A destructive action's confirmation: the button only arms once the queue name is typed. */
import { useId, useState, type ReactNode } from 'react';

export function TypedConfirm({
  name,
  label,
  pending,
  onConfirm,
  onCancel,
  children,
}: {
  name: string;
  label: string;
  pending: boolean;
  onConfirm: (confirm: string) => void;
  onCancel: () => void;
  children?: ReactNode;
}) {
  const [typed, setTyped] = useState('');
  const id = useId();
  return (
    <form
      className="typed-confirm"
      aria-label={`Confirm ${label}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (typed === name) onConfirm(typed);
      }}
    >
      {children}
      <label htmlFor={id}>
        Type <code>{name}</code> to confirm
      </label>
      <input
        id={id}
        value={typed}
        autoFocus
        autoComplete="off"
        onChange={(event) => setTyped(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
        }}
      />
      <button type="submit" className="danger" disabled={typed !== name || pending}>
        {label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
