/** lib/csv.ts: RFC 4180 quoting, JSON for objects, and cells a spreadsheet would run defused. */
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../lib/csv';

describe('csv cells', () => {
  it('quotes what needs quoting and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
  });

  it('writes numbers as numbers, nothing for null, JSON for objects', () => {
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: [1, 'x'] })).toBe('"{""a"":[1,""x""]}"');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    for (const start of ['+', '-', '@', '\t', '\r'])
      expect(csvCell(`${start}1`)[0]).not.toBe(start);
    expect(csvCell('-5 is text here')).toBe("'-5 is text here");
  });

  it('ends rows with CRLF', () => {
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});
