'use client';
/**
 * "Jump to job": a job id looked up in every discovered queue (GET /api/jobs/find). One hit opens
 * its job page; several (ids are unique per queue only) are listed to pick from. `/` or
 * Ctrl/⌘+K focuses the box from anywhere on the page except while typing in another field.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { JobLocation } from '@/lib/api-types';
import { getJson } from '../api-client';
import { jobPageHref } from '../job/hrefs';

function typingElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function QuickJump() {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [id, setId] = useState('');
  const [found, setFound] = useState<JobLocation[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const slash = event.key === '/' && !typingElsewhere(event.target);
      const k = event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey);
      if (!slash && !k) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const wanted = id.trim();
    if (wanted === '') return;
    setMessage(null);
    setFound(null);
    try {
      const { locations } = await getJson<{ locations: JobLocation[] }>(
        `/api/jobs/find?id=${encodeURIComponent(wanted)}`,
      );
      if (locations.length === 1) {
        const [only] = locations;
        setId('');
        router.push(jobPageHref(only!.prefix, only!.queue, only!.id));
      } else if (locations.length === 0) setMessage(`No job ${wanted} in any queue`);
      else setFound(locations);
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <form className="quick-jump" role="search" aria-label="Jump to job" onSubmit={submit}>
      <input
        ref={input}
        aria-label="Jump to job id"
        placeholder="Job id ( / )"
        value={id}
        onChange={(e) => setId(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            setFound(null);
            setMessage(null);
            input.current?.blur();
          }
        }}
      />
      {message && (
        <span role="status" className="quick-jump-popup">
          {message}
        </span>
      )}
      {found && (
        <ul className="quick-jump-popup" aria-label="Queues with this job id">
          {found.map((hit) => (
            <li key={`${hit.prefix}:${hit.queue}`}>
              <a
                href={jobPageHref(hit.prefix, hit.queue, hit.id)}
                onClick={(e) => {
                  e.preventDefault();
                  setFound(null);
                  router.push(jobPageHref(hit.prefix, hit.queue, hit.id));
                }}
              >
                {hit.prefix}:{hit.queue} · {hit.jobName} ({hit.state})
              </a>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
