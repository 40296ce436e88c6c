import { invariant } from "../shared/errors.js";

/** An intentReference: 11 payload digits and a Luhn check digit (DESIGN.md section 3). */
export const INTENT_REFERENCE_LENGTH = 12;
const PAYLOAD_LENGTH = INTENT_REFERENCE_LENGTH - 1;
const PAYLOAD_RANGE = 10n ** BigInt(PAYLOAD_LENGTH);

/**
 * The Luhn check digit of a digit string: from the right, every second digit starting with the
 * rightmost is doubled (minus 9 when above 9); the check digit brings the sum to a multiple of 10.
 * It catches every single-digit typo and most swaps of neighbours a payer makes.
 */
export function luhnCheckDigit(payload: string): number {
  invariant(/^[0-9]+$/.test(payload), "the Luhn payload is digits");
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = payload.charCodeAt(payload.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True for 12 digits whose last is the Luhn check digit of the first 11. */
export function isValidIntentReference(reference: string): boolean {
  return (
    reference.length === INTENT_REFERENCE_LENGTH &&
    /^[0-9]+$/.test(reference) &&
    luhnCheckDigit(reference.slice(0, PAYLOAD_LENGTH)) === Number(reference[PAYLOAD_LENGTH])
  );
}

/**
 * An intentReference from a hex digest (at least 16 hex digits, i.e. 64 bits): the first 64 bits
 * reduced to 11 decimal digits, plus the check digit. Feeding a hash of a fresh random id spreads
 * references uniformly, so neighbouring intents do not get guessable neighbouring references.
 */
export function intentReferenceFromHex(hex: string): string {
  invariant(/^[0-9a-f]{16,}$/i.test(hex), "an intent reference needs 64 bits of digest");
  const payload = (BigInt(`0x${hex.slice(0, 16)}`) % PAYLOAD_RANGE).toString().padStart(PAYLOAD_LENGTH, "0");
  return `${payload}${luhnCheckDigit(payload)}`;
}
