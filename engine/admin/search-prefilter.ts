/**
 * A cheap first look at a job's stored fields that rules out most non-matches of a search
 * before the job is parsed, redacted and serialized (what jobMatcher in job-search.ts does, a
 * few microseconds per job: most of a scan's time on a big state).
 *
 * It must never rule out a job the full matcher would keep. The argument, for text and path:
 * take a run of ASCII letters in the query (`word`, two letters or more). Wherever the query
 * occurs in the redacted view, `word` occurs inside one token of it, since quotes,
 * brackets, commas and colons are not letters: a key, a string, a literal (true, false, null),
 * or a marker the redaction put there ("[redacted]", "[too deep]"), or an exponent "e" of a
 * number, which is a single letter between digits. Keys, strings and literals of the view are
 * the stored JSON's own characters, re-serialized; serializing again changes spacing and escapes,
 * and of the escapes only `\uXXXX` can stand for a letter. So when the stored data holds no
 * `\u` and `word` is no part of a marker, a job whose stored data lacks `word` (ignoring case,
 * as the search does) cannot match. Every such run of the query is checked: `needle-account`
 * rules out the jobs without "needle" even when every job has an `account` key.
 *
 * A query with no such run (`::::9`, `"`, `2024-`) gets no first look: digits and punctuation
 * prove nothing about the stored text, since numbers are re-serialized (`1e3` is shown `1000`),
 * and quotes, colons and brackets come from serialization, markers and re-serialized JSON inside
 * strings. Such a query may match every job anyway (`"`), so what bounds its cost is not this
 * look but the matching's CPU turns (cpu-turns.ts) and the console's search gate.
 *
 * A name search compares the stored name itself, so its look is the whole test.
 */
import type { JobFilter } from './job-filter';

/** Text the redaction writes into a view (redaction.ts): a query word from it proves nothing. */
const MARKER_TEXT = '[redacted] [too deep]';

/** The runs of two or more ASCII letters in `text`, lower-cased, that no marker contains. */
export function telltaleWords(text: string): string[] {
  const runs = text.toLowerCase().match(/[a-z]{2,}/g) ?? [];
  return [...new Set(runs)].filter((run) => !MARKER_TEXT.includes(run));
}

export type StoredFields = Readonly<Record<string, string>>;

/** A test on stored fields: false only when the job certainly does not match. */
export function searchPrefilter(filter: JobFilter): (fields: StoredFields) => boolean {
  if (filter.mode === 'name') {
    const needle = filter.query.toLowerCase();
    return (fields) => fields.name === undefined || fields.name.toLowerCase().includes(needle);
  }
  if (filter.mode !== 'text' && filter.mode !== 'path') return () => true;
  // An empty path query matches any job that has the path: nothing to look for.
  const words = telltaleWords(filter.query);
  if (words.length === 0) return () => true;
  return (fields) => {
    const data = fields.data;
    if (data === undefined || data.includes('\\u')) return true;
    const text = data.toLowerCase();
    return words.every((word) => text.includes(word));
  };
}
