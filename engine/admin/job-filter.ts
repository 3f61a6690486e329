/** What a search matches on; bulk operations over "all matching" reuse the same filter. */
export type JobSearchMode = 'name' | 'text' | 'path';

export interface JobFilter {
  mode: JobSearchMode;
  /** Substring for name/text; for path, the value compared (as text) with the one at `path`. */
  query: string;
  /** Dotted path into data for mode 'path', e.g. `user.email` or `items[0].sku`. */
  path?: string;
}
