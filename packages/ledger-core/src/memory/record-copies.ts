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
 */
const copyFlat = <T extends object>(v: T): T => ({ ...v });

export const copyOperation = (op: Operation): Operation => ({
  ...op,
  feeBreakdown: op.feeBreakdown.map(copyFlat),
  provider: op.provider === null ? null : { ...op.provider },
  details: clone(op.details),
  metadata: clone(op.metadata),
});

export const copyJournal = (j: Journal): Journal => ({ ...j, entries: j.entries.map(copyFlat) });

export const copyCustomer = (c: Customer): Customer => ({ ...c, metadata: clone(c.metadata) });

export const copyWallet: (w: Wallet) => Wallet = copyFlat;
export const copyTimelineEvent: (e: TimelineEvent) => TimelineEvent = copyFlat;
export const copyOutboxEvent: (e: OutboxEvent) => OutboxEvent = copyFlat;

/** `copy` of a record that may be absent. */
export const copyOrNull = <T>(v: T | null | undefined, copy: (v: T) => T): T | null =>
  v === null || v === undefined ? null : copy(v);
