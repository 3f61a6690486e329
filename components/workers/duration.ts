/** Seconds as a short human duration: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function formatSeconds(total: number): string {
  if (!Number.isFinite(total) || total < 0) return '—';
  if (total < 60) return `${Math.floor(total)} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
