'use client';

/** A number is a percentage; an object progress (bullmq allows any JSON) is shown as text. */
export function ProgressBar({ progress }: { progress: number | object }) {
  if (typeof progress !== 'number') {
    return <code data-testid="progress">{JSON.stringify(progress)}</code>;
  }
  const value = Math.max(0, Math.min(100, progress));
  return (
    <span className="progress-wrap">
      <progress max={100} value={value} aria-label="Progress" data-testid="progress" />{' '}
      {Math.round(value)}%
    </span>
  );
}
