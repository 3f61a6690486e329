'use client';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { safeCallbackPath } from '@/lib/safe-callback';

/** What the sign-in answered, in words; the server names throttling refusals by these errors. */
function signInMessage(error: string | null | undefined): string {
  if (error === 'TooManyAttempts') {
    return 'Too many failed sign-ins. Wait a few minutes before trying again.';
  }
  if (error === 'SignInBusy') return 'The console is busy with other sign-ins. Try again shortly.';
  return 'Wrong username or password.';
}

export function LoginForm({ callbackUrl }: { callbackUrl: string | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', {
      redirect: false,
      username: String(form.get('username') ?? ''),
      password: String(form.get('password') ?? ''),
    });
    setPending(false);
    if (result?.ok && !result.error) {
      // Same origin only: a callbackUrl pointing elsewhere would make login an open redirect.
      router.replace(safeCallbackPath(callbackUrl, window.location.origin));
      router.refresh();
    } else {
      setError(signInMessage(result?.error));
    }
  }

  return (
    <form onSubmit={submit} noValidate>
      <label>
        Username
        <input name="username" autoComplete="username" required autoFocus />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && (
        <p role="alert" className="notice error">
          {error}
        </p>
      )}
      <button type="submit" className="primary" disabled={pending}>
        Sign in
      </button>
    </form>
  );
}
