import type { Tx } from "../store/unit-of-work.js";
import type { ActorType, Operation, OperationState, TimelineEvent } from "./model.js";
import { assertTransition, finalStates } from "./model.js";

/** Inserts a new operation in state `created` with timeline event 0 (fromState null). */
export async function createOperation(tx: Tx, op: Operation, actorType: ActorType): Promise<void> {
  await tx.operations.insertWithTimeline(op, [timelineEvent(op, 0, null, op.createdAt, actorType)]);
}

/**
 * Moves the operation along the state machine, appending the timeline event and stamping
 * `completedAt` the first time it reaches a final state. Mutates and persists `op`.
 */
export async function transitionOperation(
  tx: Tx,
  op: Operation,
  to: OperationState,
  at: string,
  actorType: ActorType,
): Promise<void> {
  const from = op.state;
  advance(op, to, at);
  const sequenceNo = await tx.operations.timelineLength(op.uid);
  await tx.operations.update(op);
  await tx.operations.appendTimeline(timelineEvent(op, sequenceNo, from, at, actorType));
}

/**
 * What `createOperation` then `transitionOperation` to `to` leave behind (the operation in state
 * `to`, timeline events 0 and 1), written as one insert of the operation already in state `to`:
 * no update of a row inserted a moment before, and no reading back of the timeline's length. No
 * one sees the row in between (one transaction), so nothing can tell the difference.
 */
export async function createAndTransitionOperation(
  tx: Tx,
  op: Operation,
  createdBy: ActorType,
  to: OperationState,
  at: string,
  transitionedBy: ActorType,
): Promise<void> {
  const created = op.state;
  advance(op, to, at);
  await tx.operations.insertWithTimeline(op, [
    timelineEvent(op, 0, null, op.createdAt, createdBy, created),
    timelineEvent(op, 1, created, at, transitionedBy),
  ]);
}

/** Moves `op` to `to` in memory, after checking the state machine allows it. */
function advance(op: Operation, to: OperationState, at: string): void {
  assertTransition(op.state, to);
  op.state = to;
  op.updatedAt = at;
  if (op.completedAt === null && finalStates.includes(to)) op.completedAt = at;
}

/** The timeline event recording `op`'s move from `fromState` to `toState` (default: its state now). */
function timelineEvent(
  op: Operation,
  sequenceNo: number,
  fromState: OperationState | null,
  occurredAt: string,
  actorType: ActorType,
  toState: OperationState = op.state,
): TimelineEvent {
  return { operationUid: op.uid, sequenceNo, fromState, toState, occurredAt, actorType };
}
