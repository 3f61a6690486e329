/** Human-readable ages and durations for the job table. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = s / 60;
  if (m < 60) return `${Math.floor(m)} min`;
  const h = m / 60;
  if (h < 48) return `${Math.floor(h)} h`;
  return `${Math.floor(h / 24)} d`;
}

export function formatProgress(progress: number | object): string {
  if (typeof progress === 'number') return `${Math.round(progress)}%`;
  return JSON.stringify(progress).slice(0, 40);
}
