'use client';
/**
 * A small collapsible JSON view: objects and arrays are <details> elements, so they open and
 * close with the keyboard (Enter/Space on the summary) with no script of our own. Levels below
 * `openDepth` start closed; very long arrays/objects show their first entries only.
 */
import { formatCount } from '@/lib/format-number';

const MAX_ENTRIES = 200;

function Scalar({ value }: { value: unknown }) {
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'string')
    return <span className="json-string">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-boolean">{String(value)}</span>;
  return <span className="json-null">{String(value)}</span>;
}

function Node({
  label,
  value,
  depth,
  openDepth,
}: {
  label?: string;
  value: unknown;
  depth: number;
  openDepth: number;
}) {
  const name = label === undefined ? null : <span className="json-key">{label}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <li>
        {name}
        <Scalar value={value} />
      </li>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, i) => [String(i), item] as const)
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <li>
        {name}
        <span className="json-punct">
          {open}
          {close}
        </span>
      </li>
    );
  }
  return (
    <li>
      <details open={depth < openDepth}>
        <summary>
          {name}
          <span className="json-punct">
            {open} {formatCount(entries.length)} {Array.isArray(value) ? 'items' : 'keys'} {close}
          </span>
        </summary>
        <ul>
          {entries.slice(0, MAX_ENTRIES).map(([key, child]) => (
            <Node key={key} label={key} value={child} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > MAX_ENTRIES && <li>… {entries.length - MAX_ENTRIES} more</li>}
        </ul>
      </details>
    </li>
  );
}

export function JsonTree({
  value,
  label,
  openDepth = 2,
}: {
  value: unknown;
  /** Accessible name of the tree. */
  label: string;
  openDepth?: number;
}) {
  return (
    <ul className="json-tree" aria-label={label}>
      <Node value={value} depth={0} openDepth={openDepth} />
    </ul>
  );
}
