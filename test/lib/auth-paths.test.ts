/** The shapes of auth requests the console accepts (lib/server/sign-in/auth-paths.ts). */
import { describe, expect, it } from 'vitest';
import {
  allowedPostPath,
  AuthFormError,
  isAllowedGetPath,
  isFormContentType,
  parseAuthForm,
} from '../../lib/server/sign-in/auth-paths';

describe('auth paths', () => {
  it('serves exactly the endpoints the console uses', () => {
    expect(allowedPostPath(['callback', 'credentials'])).toBe('callback/credentials');
    expect(allowedPostPath(['signout'])).toBe('signout');
    for (const extra of [
      ['callback', 'credentials', 'x'],
      ['callback', 'credentials', ''],
      ['callback', 'github'],
      ['signin', 'credentials'],
      ['session'],
      ['_log'],
      ['signout', 'x'],
    ]) {
      expect(allowedPostPath(extra)).toBeNull();
    }
    expect(isAllowedGetPath(['csrf'])).toBe(true);
    expect(isAllowedGetPath(['session'])).toBe(true);
    expect(isAllowedGetPath(['callback', 'credentials'])).toBe(false);
    expect(isAllowedGetPath(['csrf', 'x'])).toBe(false);
  });

  it('takes each known field once and refuses repeats, unknown fields and long values', () => {
    const form = parseAuthForm('callback/credentials', 'username=boss&password=p%26w&json=true');
    expect(Object.fromEntries(form)).toEqual({ username: 'boss', password: 'p&w', json: 'true' });
    expect(() =>
      parseAuthForm('callback/credentials', 'username=decoy&username=boss&password=x'),
    ).toThrow(AuthFormError);
    expect(() => parseAuthForm('callback/credentials', 'user=boss&password=x')).toThrow(
      AuthFormError,
    );
    expect(() => parseAuthForm('signout', 'csrfToken=a&username=boss')).toThrow(AuthFormError);
    expect(() => parseAuthForm('signout', `callbackUrl=${'x'.repeat(3000)}`)).toThrow(
      AuthFormError,
    );
  });

  it('accepts only a form content type, never one that also names JSON', () => {
    expect(isFormContentType('application/x-www-form-urlencoded')).toBe(true);
    expect(isFormContentType('application/x-www-form-urlencoded;charset=UTF-8')).toBe(true);
    expect(isFormContentType('application/json')).toBe(false);
    expect(isFormContentType('application/x-www-form-urlencoded; application/json')).toBe(false);
    expect(isFormContentType('multipart/form-data; boundary=x')).toBe(false);
    expect(isFormContentType(null)).toBe(false);
  });
});
