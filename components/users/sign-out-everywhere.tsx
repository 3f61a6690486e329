'use client';
import { useMutation } from '@tanstack/react-query';
import type { SignOutEverywhereResponse } from '@/lib/api-types';
import { postJson } from '../api-client';

/** Ends every session of one user, after a confirmation naming them. */
export function SignOutEverywhere({ username }: { username: string }) {
  const mutation = useMutation({
    mutationFn: () =>
      postJson<SignOutEverywhereResponse>(`/api/users/${encodeURIComponent(username)}/sign-out`),
  });
  const confirmAndRun = () => {
    if (window.confirm(`Sign ${username} out of every session now?`)) mutation.mutate();
  };
  return (
    <>
      <button type="button" onClick={confirmAndRun} disabled={mutation.isPending}>
        Sign out everywhere
      </button>
      {mutation.isSuccess && <span role="status"> Signed out everywhere.</span>}
      {mutation.isError && (
        <span role="alert" className="error">
          {' '}
          {mutation.error.message}
        </span>
      )}
    </>
  );
}
