import { invariant } from "../shared/errors.js";

/** Records are JSON-shaped (strings, numbers, booleans, null, arrays, plain objects). */
export const clone = <T>(v: T): T => (v === null || v === undefined ? v : JSON.parse(JSON.stringify(v)));

/**
 * Mutations of in-memory tables that the memory unit of work can undo: each records its inverse
 * while a unit of work is open, and a refusal rolls them back in reverse order.
 */
export class UndoLog {
  private entries: (() => void)[] | null = null;

  begin(): void {
    this.entries = [];
  }

  commit(): void {
    this.entries = null;
  }

  rollback(): void {
    const log = this.entries ?? [];
    this.entries = null;
    for (let i = log.length - 1; i >= 0; i--) log[i]!();
  }

  private record(fn: () => void): void {
    invariant(this.entries, "memory store used outside a unit of work");
    this.entries.push(fn);
  }

  set<K, V>(m: Map<K, V>, k: K, v: V): void {
    const had = m.has(k);
    const prev = m.get(k);
    m.set(k, v);
    this.record(() => (had ? m.set(k, prev as V) : m.delete(k)));
  }

  delete<K, V>(m: Map<K, V>, k: K): void {
    if (!m.has(k)) return;
    const prev = m.get(k) as V;
    m.delete(k);
    this.record(() => m.set(k, prev));
  }

  push<T>(a: T[], v: T): void {
    a.push(v);
    this.record(() => a.pop());
  }

  patch<K, V extends object>(m: Map<K, V>, k: K, patch: Partial<V>): void {
    const cur = m.get(k);
    if (cur) this.set(m, k, { ...cur, ...patch });
  }
}
