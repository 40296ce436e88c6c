import type { Customer } from "../customers/model.js";
import type { OutboxEvent } from "../events/model.js";
import type { Journal } from "../ledger/journal.js";
import type { Operation, TimelineEvent } from "../operations/model.js";
import type { Wallet } from "../wallets/model.js";
import { clone } from "./clone.js";

/**
 * Copies of the records every money movement reads or writes, made by their shape: a spread for
 * the flat part and a copy of each nested object. They cost a fraction of the generic `clone`
 * (which inspects every member) and isolate just as well, as long as they follow their types: a
 * new object-valued member needs its line here (test/memory-store.test.ts fails until it has one).
 * Other records go through `clone`.
 *
 * Each record type has its own copying function: a spread sees one shape per record type, and a
 * spread shared by more than four shapes runs V8's slow generic copy, property by property.
 */
const copyFeeLine = (l: Operation["feeBreakdown"][number]) => ({ ...l });
const copyEntry = (e: Journal["entries"][number]) => ({ ...e });

export const copyOperation = (op: Operation): Operation => ({
  ...op,
  feeBreakdown: op.feeBreakdown.map(copyFeeLine),
  provider: op.provider === null ? null : { ...op.provider },
  details: clone(op.details),
  metadata: clone(op.metadata),
});

export const copyJournal = (j: Journal): Journal => ({ ...j, entries: j.entries.map(copyEntry) });

export const copyCustomer = (c: Customer): Customer => ({ ...c, metadata: clone(c.metadata) });

export const copyWallet = (w: Wallet): Wallet => ({ ...w });
export const copyTimelineEvent = (e: TimelineEvent): TimelineEvent => ({ ...e });
export const copyOutboxEvent = (e: OutboxEvent): OutboxEvent => ({ ...e });

/** The copy of an event the store keeps: its body in one piece (see `flatten`). */
export const storedOutboxEvent = (e: OutboxEvent): OutboxEvent => ({ ...e, body: flatten(e.body) });

/** Where `flatten` puts what it read, so that the read is never optimized away. */
let _lastRead = 0;

/**
 * `text`, in one piece. V8 keeps a string built from parts (a concatenation, JSON.stringify's
 * output) as a tree of them until it is read by index, which flattens it in place. The store
 * flattens what it keeps for good (an event's body), so the garbage collector moves one string
 * rather than every part and the nodes joining them, and the keys it looks up, which V8 would
 * otherwise flatten into a scratch buffer again for every hash and comparison.
 */
export function flatten(text: string): string {
  _lastRead = text.charCodeAt(0);
  return text;
}

/** `copy` of a record that may be absent. */
export const copyOrNull = <T>(v: T | null | undefined, copy: (v: T) => T): T | null =>
  v === null || v === undefined ? null : copy(v);
