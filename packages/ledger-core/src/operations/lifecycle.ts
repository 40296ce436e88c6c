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
  const sequenceNo = await tx.operations.timelineLength(op.uid);
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
