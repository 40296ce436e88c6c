import { DomainError } from "@wallet/ledger-core";

/** The core's refusal that `run` throws; anything else (or nothing) fails the test. */
export function refusalOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}
