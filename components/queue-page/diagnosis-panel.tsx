'use client';
/** "Why isn't this queue moving?": the reasons engine/admin/redis/diagnose.ts finds, polled. */
import { useDiagnosis } from './use-queue-page';

export function DiagnosisPanel({ prefix, name }: { prefix: string; name: string }) {
  const { data, error } = useDiagnosis(prefix, name);
  return (
    <section className="panel" aria-labelledby="diagnosis-heading" data-testid="diagnosis">
      <h2 id="diagnosis-heading">Why isn’t this queue moving?</h2>
      {error && (
        <p role="alert" className="notice error">
          {error.message}
        </p>
      )}
      {data && (
        <ul className="reasons">
          {data.reasons.map((reason) => (
            <li
              key={reason.code}
              data-reason={reason.code}
              className={data.healthy ? 'ok' : 'warn'}
            >
              {reason.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
