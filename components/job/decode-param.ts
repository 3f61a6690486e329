/** A route segment as text; a stray "%" (already decoded, or malformed) is kept as it is. */
export function decodeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
