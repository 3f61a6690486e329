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

  it('defuses formulas a semicolon-locale spreadsheet would find inside a cell', () => {
    const hostile = [
      'report;=HYPERLINK("http://evil","x")',
      'a; +1+1',
      'a;-2;@SUM(A1)',
      'one\n=cmd|calc',
      'tab\t=1',
      { note: 'x;=1' },
    ];
    const csv = csvRow(['id', ...hostile]);
    // Such a spreadsheet splits at ';' (and at tabs and line breaks), honours a quote only at
    // the start of its own cell, and trims leading spaces: no cell it sees may start a formula.
    const cells = csv.split(/[;\t\r\n]/).map((cell) => cell.trimStart().replace(/^"/, ''));
    expect(cells.filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
    // The text stays readable: one apostrophe before each formula character, nothing lost.
    expect(csvCell('report;=HYPERLINK(1)')).toBe("report;'=HYPERLINK(1)");
    expect(csvCell('a;b;c')).toBe('a;b;c');
  });

  it('ends rows with CRLF', () => {
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});
