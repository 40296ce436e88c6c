import { invariant } from "../shared/errors.js";

/** Stands for "the key was absent" among the values a `set` replaced. */
const absent = Symbol("absent");

/** How a logged step is undone; a step is [how, target, key, previous value] in `steps`. */
const restore = 0;
const pop = 1;
type Undo = typeof restore | typeof pop;

/**
 * Mutations of in-memory tables that the memory unit of work can undo: each records its inverse
 * while a unit of work is open, and a refusal rolls them back in reverse order. The steps sit flat
 * in one reused array (four slots each), so logging allocates nothing on the hot path.
 */
export class UndoLog {
  private readonly steps: unknown[] = [];
  private open = false;

  begin(): void {
    this.steps.length = 0;
    this.open = true;
  }

  commit(): void {
    this.steps.length = 0;
    this.open = false;
  }

  rollback(): void {
    const steps = this.steps;
    this.open = false;
    for (let i = steps.length - 4; i >= 0; i -= 4) {
      const target = steps[i + 1];
      if (steps[i] === pop) {
        (target as unknown[]).pop();
        continue;
      }
      const prev = steps[i + 3];
      if (prev === absent) (target as Map<unknown, unknown>).delete(steps[i + 2]);
      else (target as Map<unknown, unknown>).set(steps[i + 2], prev);
    }
    steps.length = 0;
  }

  set<K, V>(m: Map<K, V>, k: K, v: V): void {
    this.assertOpen();
    // Two lookups, not three: whether the key was there shows in the size.
    const size = m.size;
    const prev = m.get(k);
    m.set(k, v);
    this.steps.push(restore, m, k, m.size === size ? prev : absent);
  }

  /** `set` of a key the caller just found absent. */
  add<K, V>(m: Map<K, V>, k: K, v: V): void {
    this.record(restore, m, k, absent);
    m.set(k, v);
  }

  /** `set` of a key the caller just found holding `current`. */
  replace<K, V>(m: Map<K, V>, k: K, current: V, v: V): void {
    this.record(restore, m, k, current);
    m.set(k, v);
  }

  /** The value at `k`, first set to `make()` if the key is absent. */
  ensure<K, V>(m: Map<K, V>, k: K, make: () => V): V {
    let v = m.get(k);
    if (v === undefined) {
      v = make();
      this.set(m, k, v);
    }
    return v;
  }

  delete<K, V>(m: Map<K, V>, k: K): void {
    if (!m.has(k)) return;
    this.record(restore, m, k, m.get(k));
    m.delete(k);
  }

  push<T>(a: T[], v: T): void {
    this.record(pop, a, undefined, undefined);
    a.push(v);
  }

  patch<K, V extends object>(m: Map<K, V>, k: K, patch: Partial<V>): void {
    const cur = m.get(k);
    if (cur) this.set(m, k, { ...cur, ...patch });
  }

  /** Logs the step undoing a mutation about to be made: none is made outside a unit of work. */
  private record(kind: Undo, target: unknown, key: unknown, prev: unknown): void {
    this.assertOpen();
    this.steps.push(kind, target, key, prev);
  }

  private assertOpen(): void {
    invariant(this.open, "memory store used outside a unit of work");
  }
}
