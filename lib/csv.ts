/**
 * CSV cells and rows (RFC 4180: a cell with a comma, quote or line break is quoted, quotes
 * doubled; rows end in CRLF). Objects become their JSON. A text cell that a spreadsheet would run
 * as a formula (it starts with =, +, -, @, a tab or a carriage return) gets a leading apostrophe,
 * as OWASP advises for CSV injection: job data is written by whoever adds jobs, and an operator
 * opens the export. Numbers stay numbers.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
