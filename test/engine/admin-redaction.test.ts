/**
 * engine/admin/redaction.ts: the one redacted view of job text the console shows, searches and
 * filters. A table of the shapes secrets take in job data, failure reasons, stack traces and
 * logs, each with what the view must show; then the key rules, nested JSON, additive extra
 * names, restoring an edit, and linear time on hostile input.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REDACTION,
  isSensitiveKey,
  REDACTED,
  redactionRules,
  redactString,
  redactText,
  redactValue,
  restoreRedacted,
} from 'oxmq/admin';

const R = REDACTED;

describe('free text', () => {
  it.each([
    // [what, text, shown]
    ['a quoted JSON value with a space', '{"password": "hunter 2"}', `{"password": "${R}"}`],
    ['a single-quoted value with a space', "token='tok en'", `token='${R}'`],
    ['a double-quoted value', 'secret="a b c" ok', `secret="${R}" ok`],
    ['key=value', 'login failed: password=pw1', `login failed: password=${R}`],
    ['key: value', 'apiKey: abc123, user: bob', `apiKey: ${R}, user: bob`],
    ['a query string', '/cb?access_token=abc&user=bob', `/cb?access_token=${R}&user=bob`],
    [
      'an escaped JSON body in a message',
      'body {\\"pwd\\":\\"x y\\"}',
      `body {\\"pwd\\":\\"${R}\\"}`,
    ],
    ['a pass key', 'db_pass=x1 passenger=bob', `db_pass=${R} passenger=bob`],
    ['a pwd key', 'userPwd: x2', `userPwd: ${R}`],
    ['an auth key', 'x-auth=x3 author=me', `x-auth=${R} author=me`],
    ['a credentials key', 'credentials=x4', `credentials=${R}`],
    ['a privateKey key', "privateKey: 'x5'", `privateKey: '${R}'`],
    [
      'an Authorization header, to the line end',
      'Authorization: Bearer x6\nnext',
      `Authorization: ${R}\nnext`,
    ],
    ['a Cookie header, every pair', 'Cookie: a=1; b=2\r\nHost: h', `Cookie: ${R}\r\nHost: h`],
    ['a bearer scheme kept before a bare token', 'token: bearer x7 end', `token: bearer ${R} end`],
    ['an unclosed quote, to the line end', 'secret="x8 and more\nline 2', `secret="${R}\nline 2`],
    [
      'a sensitive pair inside a harmless quoted value',
      'note="password=x9"',
      `note="password=${R}"`,
    ],
    ['a redis URL password', 'redis://:pw@host:6379/0', `redis://:${R}@host:6379/0`],
    ['a URL user:password', 'postgres://app:s3@db/x', `postgres://app:${R}@db/x`],
    ['a URL token as user', 'https://ghp_x@github.com/o/r', `https://${R}@github.com/o/r`],
    ['an @ in a URL path is not userinfo', 'https://h.example/a@b', 'https://h.example/a@b'],
    [
      'harmless text is untouched',
      'at run (/app/job.js:10:5) 12:30',
      'at run (/app/job.js:10:5) 12:30',
    ],
    ['a pw key', 'login pw=hunter2 ok', `login pw=${R} ok`],
    ['a sid key', 'connect.sid=s%3Aabc; path=/', `connect.sid=${R}; path=/`],
    ['a jwt key', 'jwt: eyJhbGciOi.x.y', `jwt: ${R}`],
    ['a signature key', '?X-Amz-Signature=abc123&x=1', `?X-Amz-Signature=${R}&x=1`],
    ['an access_key key', 'access_key=AKIA1 accesskey=AKIA2', `access_key=${R} accesskey=${R}`],
    ['a value after a comma', 'password=ab,cd user=bob', `password=${R} user=bob`],
    ['a value after a semicolon', 'password=ab;cd', `password=${R}`],
    ['a value after & " } ]', `password=a&b"c}d]e'f\\g`, `password=${R}`],
    ['a value starting with a comma', 'password=,abc', `password=${R}`],
    ['a value that is an array', 'secret=[1, "two"] next', `secret=${R} next`],
    ['a value that is an object', 'auth={"u":"x", "p":"y"}, ok', `auth=${R}, ok`],
    [
      'a JSON object under a key',
      '{"auth": {"user": "u", "id": 7}, "n": 1}',
      `{"auth": ${R}, "n": 1}`,
    ],
    ['a JSON array under a key', '{"token": ["a", "b"]}', `{"token": ${R}}`],
    [
      'the next pair after a delimiter',
      'a=1&token=x&b=2;pw=y;c=3',
      `a=1&token=${R}&b=2;pw=${R};c=3`,
    ],
    [
      'a closing brace then text',
      'User{name=bob, password=x}, next',
      `User{name=bob, password=${R}}, next`,
    ],
    [
      'the next escaped JSON pair',
      'body {\\"token\\":abc,\\"user\\":\\"bob\\"}',
      `body {\\"token\\":${R},\\"user\\":\\"bob\\"}`,
    ],
    [
      'a private key block',
      'key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- ok',
      `key: -----BEGIN RSA PRIVATE KEY-----${R}-----END RSA PRIVATE KEY----- ok`,
    ],
    [
      'an escaped private key in JSON text',
      '"-----BEGIN OPENSSH PRIVATE KEY-----\\nb3Bl\\n-----END OPENSSH PRIVATE KEY-----\\n"',
      `"-----BEGIN OPENSSH PRIVATE KEY-----${R}-----END OPENSSH PRIVATE KEY-----\\n"`,
    ],
    [
      'an unclosed private key block, to the end',
      'x -----BEGIN PRIVATE KEY-----\nMIIE\nmore',
      `x -----BEGIN PRIVATE KEY-----${R}`,
    ],
    [
      'a certificate stays',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    ],
    ['a URL password with /', 'redis://:p/ss@cache:6379/0', `redis://:${R}@cache:6379/0`],
    ['a URL password with #', 'postgres://app:p#w@db/x', `postgres://app:${R}@db/x`],
    ['a URL password with @', 'redis://u:p@ss@cache:6379', `redis://u:${R}@cache:6379`],
    ['a URL password with / # @ ?', 'amqp://u:a?b/c#d@e@mq/vh', `amqp://u:${R}@mq/vh`],
    ['a URL password with @ then /', 'redis://:p@ss/w#rd@cache:6379', `redis://:${R}@cache:6379`],
    [
      'an @ after URL credentials over-redacts rather than leaks',
      'https://u:pw@h.example/p?to=a@b.example',
      `https://u:${R}@b.example`,
    ],
    ['a port is not a password', 'https://h.example:8080/a@b', 'https://h.example:8080/a@b'],
    ['sid and jwt inside words stay', 'consider inside=1 jwtish=2', 'consider inside=1 jwtish=2'],
  ])('%s', (_what, text, shown) => {
    expect(redactText(text)).toBe(shown);
  });
});

describe('keys', () => {
  it.each([
    ['password', true],
    ['userPassword', true],
    ['X-Api-Key', true],
    ['api_key', true],
    ['accessToken', true],
    ['clientSecret', true],
    ['set-cookie', true],
    ['Authorization', true],
    ['credentials', true],
    ['privateKey', true],
    ['private_key', true],
    ['passphrase', true],
    ['pass', true],
    ['DB_PASS', true],
    ['adminPass', true],
    ['pwd', true],
    ['auth', true],
    ['basicAuth', true],
    ['passenger', false],
    ['passport', false],
    ['compass', false],
    ['author', false],
    ['authority', false],
    ['email', false],
    ['pw', true],
    ['db_pw', true],
    ['sid', true],
    ['connect.sid', true],
    ['sessionId', true],
    ['jwt', true],
    ['authJwt', true],
    ['signature', true],
    ['X-Hub-Signature-256', true],
    ['access_key', true],
    ['awsAccessKeyId', true],
    ['consider', false],
    ['inside', false],
    ['jwtish', false],
    ['power', false],
  ])('%s sensitive: %s', (key, sensitive) => {
    expect(isSensitiveKey(key)).toBe(sensitive);
  });
});

describe('values', () => {
  it('redacts by key at any depth, and free text and URLs in every string', () => {
    expect(
      redactValue({
        user: 'ursula',
        auth: { user: 'u', code: 1 },
        nested: { list: [{ pwd: 'x', ok: 1 }], url: 'redis://:pw@h' },
        note: 'retry with token=abc',
        n: 3,
      }),
    ).toEqual({
      user: 'ursula',
      auth: R,
      nested: { list: [{ pwd: R, ok: 1 }], url: `redis://:${R}@h` },
      note: `retry with token=${R}`,
      n: 3,
    });
  });

  it('parses JSON inside strings, to a bounded nesting, and keeps untouched JSON as written', () => {
    const inner = JSON.stringify({ credentials: { user: 'u', pw: 'p' }, ok: true });
    const twice = JSON.stringify({ payload: JSON.stringify({ secret: 's' }) });
    expect(redactValue({ body: inner })).toEqual({
      body: JSON.stringify({ credentials: R, ok: true }),
    });
    expect(JSON.parse(redactString(twice))).toEqual({
      payload: JSON.stringify({ secret: R }),
    });
    const harmless = '{ "ok":  true }';
    expect(redactString(harmless)).toBe(harmless);
    // A failure reason that is JSON loses a nested object under a sensitive key whole.
    expect(redactString('{"auth":{"login":"bob","code":"1234"}}')).toBe(`{"auth":"${R}"}`);
  });

  it('hides the value of a name/value pair or header tuple that names a sensitive key', () => {
    const data = {
      headers: [
        { name: 'Authorization', value: 'Bearer a1' },
        { name: 'Accept', value: 'json' },
      ],
      env: [{ key: 'DB_PASSWORD', value: 'a2', type: 'secret' }],
      params: [{ ParameterKey: 'DbPass', ParameterValue: 'a3' }],
      tuples: [
        ['x-api-key', 'a4'],
        ['accept', 'json'],
      ],
      title: { name: 'Password reset mail', value: 'shown' },
    };
    expect(redactValue(data)).toEqual({
      headers: [
        { name: 'Authorization', value: R },
        { name: 'Accept', value: 'json' },
      ],
      env: [{ key: 'DB_PASSWORD', value: R, type: 'secret' }],
      params: [{ ParameterKey: 'DbPass', ParameterValue: R }],
      tuples: [
        ['x-api-key', R],
        ['accept', 'json'],
      ],
      title: { name: 'Password reset mail', value: 'shown' },
    });
    // The same shapes inside a JSON string, and in JSON too large to parse.
    const body = JSON.stringify(data);
    const shown = (redactValue({ body }) as { body: string }).body;
    for (const secret of ['a1', 'a2', 'a3', 'a4']) expect(shown).not.toContain(`"${secret}"`);
  });

  it('hides arrays and objects under a sensitive key in JSON too large to parse', () => {
    const big = JSON.stringify({
      pad: 'x'.repeat(300 * 1024),
      credentials: { user: 'u1', code: 'c1' },
      tokens: ['t1', 't2'],
      ok: 'kept',
    });
    const shown = redactString(big);
    expect(shown).not.toMatch(/u1|c1|t1|t2/);
    expect(shown).toContain(`"credentials":${R},"tokens":${R},"ok":"kept"`);
  });

  it('never parses beyond the nesting bound, but still redacts the text it stops at', () => {
    let text = JSON.stringify({ password: 'deep' });
    for (let i = 0; i < 6; i++) text = JSON.stringify({ wrap: text });
    expect(JSON.stringify(redactValue({ text }))).not.toContain('deep');
  });

  it('adds configured names to the defaults, never replacing them', () => {
    const rules = redactionRules(['Customer_SSN', ' ', 'pin']);
    expect(rules.names).toEqual(expect.arrayContaining(['password', 'customerssn', 'pin']));
    expect(redactValue({ customerSsn: '1', password: '2', pin: '3', ok: '4' }, rules)).toEqual({
      customerSsn: R,
      password: R,
      pin: R,
      ok: '4',
    });
    expect(redactText('pin=1234 password=x', rules)).toBe(`pin=${R} password=${R}`);
    expect(DEFAULT_REDACTION.names).not.toContain('pin');
  });
});

describe('restoring an edit', () => {
  it('keeps stored values wherever the edit still shows the redacted view', () => {
    const stored = {
      password: 'hunter2',
      url: 'redis://:pw@h',
      body: JSON.stringify({ token: 't', n: 1 }),
      name: 'old',
    };
    const shown = redactValue(stored) as Record<string, unknown>;
    const edited = { ...shown, name: 'new' };
    expect(restoreRedacted(edited, stored)).toEqual({ ...stored, name: 'new' });
    // Values hidden beside a sensitive name, and in a header tuple, come back too.
    const pairs = { env: [{ name: 'API_TOKEN', value: 'v1' }], h: [['x-api-key', 'v2']] };
    expect(restoreRedacted(redactValue(pairs), pairs)).toEqual(pairs);
    // A changed value is the admin's: saved as typed.
    expect(restoreRedacted({ ...shown, url: 'redis://h2' }, stored)).toMatchObject({
      url: 'redis://h2',
      password: 'hunter2',
    });
  });
});

describe('cost', () => {
  it('stays linear on long words, many keys, URL schemes, delimiters and brackets', () => {
    const inputs = [
      'a'.repeat(1_000_000) + ' password=x',
      'password:"'.repeat(100_000),
      ('ab-'.repeat(60) + ' ').repeat(5_000),
      'x://'.repeat(250_000),
      '\\"'.repeat(500_000),
      // Delimiter runs inside one value, each followed by something that is not a key.
      'password=' + ',a'.repeat(500_000),
      'password=a' + '&b'.repeat(500_000),
      'pw=a;'.repeat(100_000),
      // Unbalanced structures and unclosed private key blocks.
      'secret=' + '['.repeat(1_000_000),
      'secret={"a":'.repeat(100_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(40_000),
      '-----BEGIN PRIVATE KEY----- -----END '.repeat(30_000),
      // URL userinfo with many `@` and schemes without hosts.
      'redis://:' + '@@'.repeat(500_000),
      'a://:'.repeat(200_000),
      'https://u:' + 'a@b.'.repeat(250_000),
    ];
    for (const input of inputs) {
      const started = performance.now();
      redactText(input);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});
