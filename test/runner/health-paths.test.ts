/** What /health shows of the machine's paths: modules relative to their processors folder. */
import { describe, expect, it } from 'vitest';
import { healthPaths } from '../../runner/health-paths';

const shown = healthPaths(
  ['/srv/app/processors', '/srv/app/processors/extra'],
  '/srv/app',
  '/home/deploy',
);

describe('health paths', () => {
  it('names a module relative to its processors folder, the nested folder first', () => {
    expect(shown.file('/srv/app/processors/emails.ts')).toBe('emails.ts');
    expect(shown.file('/srv/app/processors/extra/pdf.ts')).toBe('pdf.ts');
    expect(shown.file('/srv/app/processors')).toBe('processors');
    expect(shown.file('/elsewhere/stray.ts')).toBe('stray.ts');
  });

  it('takes absolute paths out of load errors', () => {
    expect(
      shown.text(
        'TransformError: /srv/app/processors/syntax.ts:2:35: ERROR: Expected ")" ' +
          'Require stack: - /srv/app/lib/x.ts - /home/deploy/.cache/y.js',
      ),
    ).toBe(
      'TransformError: syntax.ts:2:35: ERROR: Expected ")" Require stack: - lib/x.ts - ~/.cache/y.js',
    );
  });
});
