/** Generated Markdown tables against the docs that hold them, after prettier has padded them. */

/** Table lines without the padding prettier adds (each cell trimmed, rulers as `---`). */
export function unpadded(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line.startsWith('|')
        ? line
            .split('|')
            .map((cell) => cell.trim().replace(/^-+$/, '---'))
            .join('|')
        : line,
    )
    .join('\n');
}

/** The lines of the table in `doc` that starts with `header` (unpadded); [] when there is none. */
export function tableAt(doc: string, header: string): string[] {
  const lines = unpadded(doc).split('\n');
  const start = lines.indexOf(unpadded(header));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end);
}
