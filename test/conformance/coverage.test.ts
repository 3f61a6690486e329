/**
 * The conformance suite covers every method of the storage interfaces: each method is claimed
 * by at least one scenario (and the harness fails a scenario that claims a method it never
 * calls). A method added to an interface fails this test until a scenario covers it. The
 * failure lists every method with the scenarios that cover it.
 */
import { describe, expect, it } from 'vitest';
import { allInterfaceMethods, type InterfaceMethod } from './interface-methods';
import { SCENARIO_SETS } from './scenarios';

/**
 * Methods without a scenario yet. The list may only shrink: a method on it that a scenario now
 * covers fails the test too, so the list stays the truth.
 */
const KNOWN_GAPS: readonly InterfaceMethod[] = [];

/** Each interface method with the titles of the scenarios that claim it. */
function coverage(): Map<InterfaceMethod, string[]> {
  const table = new Map<InterfaceMethod, string[]>(
    allInterfaceMethods().map((method) => [method, []]),
  );
  for (const [area, scenarios] of Object.entries(SCENARIO_SETS)) {
    for (const scenario of scenarios) {
      for (const method of scenario.covers) {
        table.get(method)?.push(`${area}: ${scenario.title}`);
      }
    }
  }
  return table;
}

function listing(table: Map<InterfaceMethod, string[]>): string {
  return [...table]
    .map(([method, titles]) => `${method}\n${titles.map((t) => `    ${t}`).join('\n') || '    -'}`)
    .join('\n');
}

describe('conformance coverage', () => {
  it('has a scenario for every interface method', () => {
    const table = coverage();
    const uncovered = [...table].filter(([, titles]) => titles.length === 0).map(([m]) => m);
    expect(uncovered, listing(table)).toEqual(KNOWN_GAPS);
  });

  it('claims only methods the interfaces declare', () => {
    const declared = new Set<string>(allInterfaceMethods());
    const claimed = Object.values(SCENARIO_SETS).flatMap((set) => set.flatMap((s) => s.covers));
    expect(claimed.filter((method) => !declared.has(method))).toEqual([]);
  });
});
