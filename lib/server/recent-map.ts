/**
 * A Map that keeps at most `limit` entries, forgetting the least recently set one: per-user
 * and per-actor state in the console's memory stays bounded however many names requests make up.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Sets `key` as the most recent entry, forgetting the oldest when the map is full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
