/** A REDIS_URL may carry a password: logs and messages show it as `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * The same for a value shown back as it was given (an invalid setting), which may not parse as a
 * URL: the text is kept, and whatever stands between the user name's `:` and the last `@` is
 * masked.
 */
export function redactUrlText(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:).*@/i, '$1***@');
}
