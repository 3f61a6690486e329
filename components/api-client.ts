/** fetch wrappers for the console's JSON API; errors carry the API's code. */
import type { ApiError, ApiErrorCode } from '@/lib/api-types';

export class ApiClientError extends Error {
  override readonly name = 'ApiClientError';
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode | 'NETWORK',
    message: string,
  ) {
    super(message);
  }
}

async function parse<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  let error: Partial<ApiError> = {};
  try {
    error = (await response.json()) as Partial<ApiError>;
  } catch {
    // A non-JSON error page (proxy, crash): keep the status.
  }
  if (response.status === 401 && typeof window !== 'undefined') {
    // The session expired: back to the login page, then here again.
    window.location.assign(`/login?callbackUrl=${encodeURIComponent(window.location.pathname)}`);
  }
  throw new ApiClientError(
    response.status,
    error.code ?? 'INTERNAL',
    error.message ?? `Request failed with ${response.status}`,
  );
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  return parse<T>(await fetch(url, { signal, headers: { Accept: 'application/json' } }));
}

/** Mutations: POST with a JSON body; the browser adds Origin / Sec-Fetch-Site for the CSRF check. */
export async function postJson<T>(url: string, body: unknown = {}): Promise<T> {
  return parse<T>(
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}
