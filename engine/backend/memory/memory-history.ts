/**
 * TimingHistoryStore in memory: per resolution, spans (an hour of minutes, a day of hours) of
 * fields, each span dropped once its retention has passed, as the Redis hashes expire.
 */
import {
  hashStart,
  historyExpiresAt,
  historyField,
  parseHistoryField,
  slotStart,
  type HistoryRetention,
  type Resolution,
} from '../../history/history-keys';
import type { QueueKeys } from '../../queue/keys';
import type { HistoryEntry, TimingHistoryStore } from '../timing-history';
import type { HistorySpan, MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';

const RESOLUTIONS: readonly Resolution[] = ['minute', 'hour'];

export class MemoryTimingHistory implements TimingHistoryStore {
  private readonly queue: MemoryQueue;

  constructor(store: MemoryStore, keys: QueueKeys) {
    this.queue = store.queue(keys);
  }

  private span(resolution: Resolution, at: number, retention: HistoryRetention): HistorySpan {
    const key = `${resolution}:${hashStart(resolution, at)}`;
    let span = this.queue.history.get(key);
    if (!span) this.queue.history.set(key, (span = { expiresAt: 0, fields: new Map() }));
    span.expiresAt = historyExpiresAt(resolution, at, retention);
    return span;
  }

  async write(
    adds: readonly HistoryEntry[],
    sets: readonly HistoryEntry[],
    retention: HistoryRetention,
  ): Promise<void> {
    this.dropExpired(Date.now());
    for (const resolution of RESOLUTIONS) {
      for (const entry of adds) {
        const { fields } = this.span(resolution, entry.at, retention);
        const field = historyField(slotStart(resolution, entry.at), entry.series, entry.name);
        fields.set(field, (fields.get(field) ?? 0) + Math.round(entry.value));
      }
      for (const entry of sets) {
        const { fields } = this.span(resolution, entry.at, retention);
        fields.set(
          historyField(slotStart(resolution, entry.at), entry.series, entry.name),
          entry.value,
        );
      }
    }
  }

  async read(resolution: Resolution, from: number, to: number): Promise<Record<string, number>> {
    this.dropExpired(Date.now());
    const found: Record<string, number> = {};
    for (const [key, span] of this.queue.history) {
      if (!key.startsWith(`${resolution}:`)) continue;
      for (const [field, value] of span.fields) {
        const slot = parseHistoryField(field)?.slot;
        if (slot !== undefined && slot >= from && slot < to) found[field] = value;
      }
    }
    return found;
  }

  private dropExpired(now: number): void {
    for (const [key, span] of this.queue.history) {
      if (span.expiresAt <= now) this.queue.history.delete(key);
    }
  }
}
