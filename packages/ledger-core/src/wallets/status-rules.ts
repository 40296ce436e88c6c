import type { CustomerStatus } from "../customers/model.js";
import { refuse } from "../shared/errors.js";
import type { WalletStatus } from "./model.js";

export type Direction = "inbound" | "outbound";

/**
 * DESIGN.md section 3: debit_blocked refuses debits and payouts; credit_blocked refuses credits and
 * new top-up intents; frozen and closed refuse both; dormant refuses outbound; pending refuses both.
 */
const walletRefuses: Record<WalletStatus, readonly Direction[]> = {
  active: [],
  pending: ["inbound", "outbound"],
  debit_blocked: ["outbound"],
  credit_blocked: ["inbound"],
  frozen: ["inbound", "outbound"],
  closed: ["inbound", "outbound"],
  dormant: ["outbound"],
};

/** A customer not active refuses movements; restricted still receives but cannot send. */
const customerAllows: Record<CustomerStatus, readonly Direction[]> = {
  active: ["inbound", "outbound"],
  restricted: ["inbound"],
  pending: [],
  suspended: [],
  deceased: [],
  closed: [],
};

export const walletAllows = (status: WalletStatus, direction: Direction) =>
  !walletRefuses[status].includes(direction);

/** Refuses (422) a movement the wallet's or customer's status forbids. */
export function assertCanMove(
  walletStatus: WalletStatus,
  customerStatus: CustomerStatus,
  direction: Direction,
): void {
  if (!customerAllows[customerStatus].includes(direction)) {
    refuse(
      "CustomerNotActive",
      `The customer cannot ${direction === "inbound" ? "receive" : "send"} funds in status ${customerStatus}`,
    );
  }
  if (!walletAllows(walletStatus, direction)) {
    refuse(
      "WalletNotActive",
      `The wallet cannot ${direction === "inbound" ? "receive" : "send"} funds in status ${walletStatus}`,
    );
  }
}

/**
 * A mandate is a standing consent for later debits: it is refused (422) for a customer whose life
 * with the tenant has ended (closed, deceased) and on a closed wallet. A status that may be lifted
 * (pending, restricted, suspended, frozen, blocked, dormant) does not refuse it: each debit checks
 * the statuses of its own day.
 */
export function assertCanHoldMandate(walletStatus: WalletStatus, customerStatus: CustomerStatus): void {
  if (customerStatus === "closed" || customerStatus === "deceased") {
    refuse("CustomerNotActive", `A mandate cannot be created for a customer in status ${customerStatus}`);
  }
  if (walletStatus === "closed") refuse("WalletNotActive", "A mandate cannot be created on a closed wallet");
}
