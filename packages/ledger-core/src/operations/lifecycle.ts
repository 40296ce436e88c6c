import type { Tx } from "../store/unit-of-work.js";
import type { ActorType, Operation, OperationState } from "./model.js";
import { assertTransition, finalStates } from "./model.js";

/** Inserts a new operation in state `created` with timeline event 0 (fromState null). */
export async function createOperation(tx: Tx, op: Operation, actorType: ActorType): Promise<void> {
  await tx.operations.insert(op);
  await tx.operations.appendTimeline({
    operationUid: op.uid,
    sequenceNo: 0,
    fromState: null,
    toState: op.state,
    occurredAt: op.createdAt,
    actorType,
  });
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
  assertTransition(op.state, to);
  await advance(tx, op, to, at, actorType, await tx.operations.timelineLength(op.uid));
}

/**
 * `createOperation` then `transitionOperation` to `to`, the same writes in the same order, minus
 * reading back the timeline's length: the operation was inserted just now, with its one event.
 */
export async function createAndTransitionOperation(
  tx: Tx,
  op: Operation,
  createdBy: ActorType,
  to: OperationState,
  at: string,
  transitionedBy: ActorType,
): Promise<void> {
  await createOperation(tx, op, createdBy);
  assertTransition(op.state, to);
  await advance(tx, op, to, at, transitionedBy, 1);
}

/** Moves `op` to `to` (a transition already checked) and records it as timeline event `sequenceNo`. */
async function advance(
  tx: Tx,
  op: Operation,
  to: OperationState,
  at: string,
  actorType: ActorType,
  sequenceNo: number,
): Promise<void> {
  const from = op.state;
  op.state = to;
  op.updatedAt = at;
  if (op.completedAt === null && finalStates.includes(to)) op.completedAt = at;
  await tx.operations.update(op);
  await tx.operations.appendTimeline({
    operationUid: op.uid,
    sequenceNo,
    fromState: from,
    toState: to,
    occurredAt: at,
    actorType,
  });
}
