'use client';
import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';

/** Only same-site paths: a callbackUrl pointing elsewhere would make login an open redirect. */
function safeCallback(url: string | null): string {
  return url !== null && url.startsWith('/') && !url.startsWith('//') ? url : '/';
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
      router.replace(safeCallback(callbackUrl));
      router.refresh();
    } else {
      setError('Wrong username or password.');
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
