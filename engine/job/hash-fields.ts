/**
 * Reading a job hash's text fields: JSON that another library (or an older writer) may have
 * left malformed falls back instead of throwing, and numbers are parsed only when present.
 */
export function parseJson<T>(text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function optionalInt(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseInt(text, 10);
}
