// The images' HEALTHCHECK (deploy/Dockerfile): `node deploy/healthcheck.mjs <url>` exits 0 when
// the URL answers 2xx within the timeout, 1 otherwise. The slim Node image has neither curl nor
// wget, and Node is there anyway. Plain node:http, so it runs without the app's dependencies.
import http from 'node:http';

const TIMEOUT_MS = 4000;
const url = process.argv[2];
if (!url) {
  console.error('usage: node deploy/healthcheck.mjs <http-url>');
  process.exit(2);
}

const request = http.get(url, { timeout: TIMEOUT_MS }, (response) => {
  const status = response.statusCode ?? 0;
  response.resume();
  if (status < 200 || status > 299) console.error(`${url}: HTTP ${status}`);
  process.exit(status >= 200 && status <= 299 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
request.on('error', (error) => {
  console.error(`${url}: ${error.message}`);
  process.exit(1);
});
