import { describe, expect, it } from 'vitest';
import { safeCallbackPath } from '../../lib/safe-callback';

const ORIGIN = 'https://console.example:8443';

describe('safeCallbackPath', () => {
  it.each([
    ['/queues/bull/emails?state=failed#top', '/queues/bull/emails?state=failed#top'],
    ['/', '/'],
    [`${ORIGIN}/audit`, '/audit'],
    ['queues', '/queues'],
  ])('keeps a same-origin target %j', (input, expected) => {
    expect(safeCallbackPath(input, ORIGIN)).toBe(expected);
  });

  it.each([
    '//evil.example/x',
    '/\\evil.example',
    '/\t/evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'https://console.example:8443.evil.example/',
    'http://console.example:8443/',
    'javascript:alert(1)',
    'data:text/html,hi',
    `${ORIGIN}//evil.example`,
    `${ORIGIN}/\\evil.example`,
    'http://[::1',
  ])('sends an off-site or unusable target %j to the overview', (input) => {
    expect(safeCallbackPath(input, ORIGIN)).toBe('/');
  });

  it('treats a missing callback as the overview', () => {
    expect(safeCallbackPath(null, ORIGIN)).toBe('/');
    expect(safeCallbackPath(undefined, ORIGIN)).toBe('/');
    expect(safeCallbackPath('', ORIGIN)).toBe('/');
  });
});
