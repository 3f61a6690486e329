/**
 * A link to a tool outside the console (trace viewer, Grafana): a new tab, and no opener or
 * referrer for the other site (the console's URLs name queues and jobs).
 */
import type { ReactNode } from 'react';

export function ExternalLink({
  href,
  children,
  testId,
  className,
}: {
  href: string;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      data-testid={testId}
      className={className}
    >
      {children}
      {/* Says it leaves the console: a glyph for the eye, words for a screen reader. */}
      <span aria-hidden="true"> ↗</span>
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}
