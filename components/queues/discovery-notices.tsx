import { formatCount } from '@/lib/format-number';
/** What a bounded queue discovery could not show: shared by every page that lists queues. */
export function DiscoveryNotices({
  complete,
  shown,
  total,
}: {
  complete: boolean;
  shown: number;
  total: number;
}) {
  return (
    <>
      {!complete && (
        <p className="notice">
          Queue discovery stopped at its scan limit: some queues may be missing.
        </p>
      )}
      {total > shown && (
        <p className="notice">
          Showing {formatCount(shown)} of {formatCount(total)} queues.
        </p>
      )}
      {shown === 0 && <p>No queues found under the configured prefixes.</p>}
    </>
  );
}
