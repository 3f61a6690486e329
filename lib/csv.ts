/**
 * CSV cells and rows (RFC 4180: a cell with a comma, quote or line break is quoted, quotes
 * doubled; rows end in CRLF). Objects become their JSON. Numbers stay numbers.
 *
 * Formula injection (OWASP's "CSV injection"): job data is written by whoever adds jobs, and an
 * operator opens the export in a spreadsheet. A text cell that starts like a formula (=, +, -,
 * @, a tab or a carriage return) gets a leading apostrophe. That is not enough on its own: a
 * spreadsheet in a locale whose list separator is `;` splits our rows at semicolons and honours
 * a quote only at the start of its own cells, so `report;=HYPERLINK(...)` (quoted or not) opens
 * as a cell `=HYPERLINK(...)`; a line break inside a quoted cell starts a new row there too.
 * So wherever a semicolon, tab or line break inside a text is followed (after any spaces) by
 * a formula character, an apostrophe goes in between as well.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A separator some spreadsheet may split at, then a formula character: `;=`, `\n +`, ... */
const FORMULA_AFTER_SEPARATOR = /([;\t\r\n][ \t]*)(?=[=+\-@])/g;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  text = text.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
