/**
 * A GET to 127.0.0.1 carrying whatever Host header a test names, as a browser tricked by DNS
 * rebinding would send (fetch does not let a caller set Host; node:http does).
 */
import http from 'node:http';

export interface HostResponse {
  status: number;
  body: string;
}

export function getWithHost(
  port: number,
  pathname: string,
  host: string | undefined,
): Promise<HostResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: pathname, method: 'GET', setHost: host !== undefined },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    if (host !== undefined) request.setHeader('host', host);
    request.on('error', reject);
    request.end();
  });
}
