/**
 * Finds the metric names a PromQL expression reads, with the functions around each and the label
 * names it matches on. A small scanner, not a full parser: it knows PromQL's lexical pieces
 * (strings, label matchers, ranges, numbers, identifiers) and tells a metric from a function,
 * an aggregation, a keyword or a label list by what surrounds the identifier. It serves the
 * dashboard checks (grafana/src/metric-check.ts): a dashboard must only read metrics that
 * docs/metrics.md lists, in the way their type allows.
 */

/** Aggregation operators: `sum by (x) (...)` puts a label list between the name and its `(`. */
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);

/** Keywords followed by a parenthesised list of label names (or, for group_*, optionally). */
const LABEL_LIST_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

/** Other words that are never metric names. */
const KEYWORDS = new Set(['bool', 'offset', 'and', 'or', 'unless', 'atan2', 'inf', 'nan']);

export interface MetricReference {
  /** The name as written, e.g. `oxmq_job_processing_duration_seconds_bucket`. */
  readonly name: string;
  /** Functions and aggregations around the reference, outermost first. */
  readonly within: readonly string[];
  /** Label names of the reference's own matchers (`{queue="x"}` gives `queue`). */
  readonly matcherLabels: readonly string[];
}

export interface PromQLAnalysis {
  readonly metrics: readonly MetricReference[];
  /** Labels named in `by`, `without`, `on`, `ignoring`, `group_left` and `group_right` lists. */
  readonly groupingLabels: readonly string[];
}

const IDENTIFIER_START = /[A-Za-z_:]/;
const IDENTIFIER_PART = /[A-Za-z0-9_:]/;

export function analyzePromQL(expr: string): PromQLAnalysis {
  const metrics: MetricReference[] = [];
  const groupingLabels: string[] = [];
  // One entry per open parenthesis: the function it calls, or '' for a plain grouping.
  const calls: string[] = [];
  // The function or aggregation whose `(` comes next (an aggregation may have `by (...)` first).
  let pendingCall = '';
  let i = 0;

  const nextSignificant = (from: number): number => {
    let j = from;
    while (j < expr.length && /\s/.test(expr[j] ?? '')) j++;
    return j;
  };
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${i} of: ${expr}`);
  };
  /** Index just past the closing delimiter, skipping strings inside. */
  const skipBalanced = (open: number, closing: string): number => {
    let j = open + 1;
    while (j < expr.length && expr[j] !== closing) {
      const c = expr[j] ?? '';
      j = c === '"' || c === "'" || c === '`' ? skipString(expr, j) : j + 1;
    }
    if (j >= expr.length) fail(`unclosed ${expr[open]}`);
    return j + 1;
  };

  while (i < expr.length) {
    const c = expr[i] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i);
    } else if (c === '#') {
      // A comment runs to the end of the line.
      while (i < expr.length && expr[i] !== '\n') i++;
    } else if (c === '{') {
      // A selector without a metric name before it: only `__name__` can name one.
      const end = skipBalanced(i, '}');
      const matchers = parseMatchers(expr.slice(i + 1, end - 1));
      const named = matchers.find((m) => m.label === '__name__');
      if (named) {
        if (named.op !== '=') fail('a __name__ matcher other than = names no single metric');
        metrics.push({
          name: named.value,
          within: calls.filter(Boolean),
          matcherLabels: matchers.filter((m) => m.label !== '__name__').map((m) => m.label),
        });
      }
      i = end;
    } else if (c === '[') {
      i = skipBalanced(i, ']');
    } else if (c === '(') {
      calls.push(pendingCall);
      pendingCall = '';
      i++;
    } else if (c === ')') {
      if (calls.pop() === undefined) fail('unbalanced )');
      i++;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(expr[i + 1] ?? ''))) {
      i = skipNumber(expr, i);
    } else if (IDENTIFIER_START.test(c)) {
      let end = i + 1;
      while (end < expr.length && IDENTIFIER_PART.test(expr[end] ?? '')) end++;
      const word = expr.slice(i, end);
      const lower = word.toLowerCase();
      const after = nextSignificant(end);
      i = end;
      if (LABEL_LIST_KEYWORDS.has(lower)) {
        if (expr[after] === '(') {
          const close = skipBalanced(after, ')');
          groupingLabels.push(...splitLabelList(expr.slice(after + 1, close - 1)));
          i = close;
        }
      } else if (AGGREGATIONS.has(lower)) {
        pendingCall = lower;
      } else if (expr[after] === '(') {
        pendingCall = word;
      } else if (!KEYWORDS.has(lower)) {
        let matcherLabels: string[] = [];
        if (expr[after] === '{') {
          const close = skipBalanced(after, '}');
          const matchers = parseMatchers(expr.slice(after + 1, close - 1));
          if (matchers.some((m) => m.label === '__name__')) fail('a metric name given twice');
          matcherLabels = matchers.map((m) => m.label);
          i = close;
        }
        metrics.push({ name: word, within: calls.filter(Boolean), matcherLabels });
      }
    } else {
      // Operators, commas, `@`, `:` in subquery steps: nothing to record.
      i++;
    }
  }
  if (calls.length > 0) throw new Error(`unclosed ( in: ${expr}`);
  return { metrics, groupingLabels };
}

interface Matcher {
  label: string;
  op: string;
  value: string;
}

/** `queue="a", state=~"x|y"` → matchers. Values may hold commas and quotes. */
function parseMatchers(body: string): Matcher[] {
  const matchers: Matcher[] = [];
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*/y;
  let i = 0;
  while (i < body.length) {
    if (/[\s,]/.test(body[i] ?? '')) {
      i++;
      continue;
    }
    pattern.lastIndex = i;
    const match = pattern.exec(body);
    if (!match || match[1] === undefined || match[2] === undefined) {
      throw new Error(`cannot read label matcher at "${body.slice(i)}"`);
    }
    const start = pattern.lastIndex;
    const end = skipString(body, start);
    matchers.push({ label: match[1], op: match[2], value: unquote(body.slice(start, end)) });
    i = end;
  }
  return matchers;
}

function splitLabelList(body: string): string[] {
  return body
    .split(',')
    .map((label) => label.trim())
    .filter(Boolean);
}

/** Index just past the string literal that starts at `start`. */
function skipString(text: string, start: number): number {
  const quote = text[start];
  if (quote !== '"' && quote !== "'" && quote !== '`') {
    throw new Error(`expected a string at "${text.slice(start)}"`);
  }
  let j = start + 1;
  while (j < text.length && text[j] !== quote) {
    // Backtick strings are raw; the others have backslash escapes.
    j += text[j] === '\\' && quote !== '`' ? 2 : 1;
  }
  if (j >= text.length) throw new Error(`unclosed string in: ${text}`);
  return j + 1;
}

function unquote(literal: string): string {
  const inner = literal.slice(1, -1);
  return literal.startsWith('`') ? inner : inner.replace(/\\(.)/g, '$1');
}

/** Numbers (`0.95`, `1e-9`, `0x1f`) and durations (`5m`, `1h30m`) after `offset` or `@`. */
function skipNumber(text: string, start: number): number {
  let j = start;
  while (j < text.length) {
    const c = text[j] ?? '';
    const exponentSign = (c === '+' || c === '-') && /^[0-9.]+[eE]$/.test(text.slice(start, j));
    if (!/[0-9A-Za-z_.]/.test(c) && !exponentSign) break;
    j++;
  }
  return j;
}
