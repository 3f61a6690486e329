/** An `every` interval written out exactly ("1 h 30 min"), since a rounded one would mislead. */
const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

export function formatEvery(ms: number): string {
  let left = Math.max(0, Math.floor(ms));
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(left / size);
    if (count > 0) parts.push(`${count} ${unit}`);
    left -= count * size;
  }
  return `every ${parts.length > 0 ? parts.join(' ') : '0 ms'}`;
}
