import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskIdentifier, normalizeIdentifier } from "../src/customers/masking.js";

/** True when `s` holds a surrogate without its other half. */
const hasLoneSurrogate = (s: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

const contact = (type: string, value: string) => maskIdentifier("contact", type, value);
const document = (type: string, value: string) => maskIdentifier("identity_document", type, value);

describe("maskIdentifier", () => {
  it("masks the usual kinds as DESIGN.md shows them", () => {
    expect(contact("msisdn", "+254712345678")).toBe("+2547******78");
    expect(contact("email", "jane@example.com")).toBe("j***@example.com");
    expect(document("national_id", "12345678")).toBe("****5678");
    expect(document("national_id", "ab")).toBe("***");
  });

  it("masks by the class and type, never by what the value looks like", () => {
    // Long numeric documents were masked as phone numbers: seven of nine digits shown.
    expect(document("national_id", "123456789")).toBe("*****6789");
    expect(document("national_id", "8001015009087")).toBe("*********9087");
    expect(document("passport", "123456789")).toBe("*****6789");
    expect(contact("ssn", "123-45-6789")).toBe("*******6789");
    // A phone number not in international form keeps its last two digits only.
    expect(contact("msisdn", "0712345678")).toBe("********78");
    expect(contact("msisdn", "712345678")).toBe("*******78");
    expect(contact("msisdn", "+254 712 345 678")).toBe("+2547******78");
    // The type without case.
    expect(contact("MSISDN", "+254712345678")).toBe("+2547******78");
    expect(contact(" Email ", "Jane@Example.com")).toBe("J***@Example.com");
    // An '@' in a document is not an email address.
    expect(document("passport", "ab@cd.efgh")).toBe("******efgh");
  });

  it("cuts between characters, never through a surrogate pair", () => {
    // Four emoji then a letter: counted in UTF-16 units (9), the kept part began inside the third
    // emoji; counted in characters (5), a third is one character.
    expect(document("national_id", "😀😀😀😀a")).toBe("****a");
    expect(contact("email", "😀x@example.com")).toBe("😀***@example.com");
  });

  it("leaves no lone surrogate, whatever the value (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("contact", "identity_document"),
        fc.constantFrom("msisdn", "email", "national_id", "passport", "other"),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
        (identifierClass, type, value) => {
          expect(hasLoneSurrogate(maskIdentifier(identifierClass, type, value))).toBe(false);
        },
      ),
    );
  });

  it("shows at most four characters of a document and two digits of a national phone number (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,20}$/), (digits) => {
        const shown = (mask: string) => [...mask].filter((c) => c !== "*").length;
        expect(shown(document("national_id", digits))).toBeLessThanOrEqual(4);
        expect(shown(contact("msisdn", digits))).toBeLessThanOrEqual(
          Math.max(2, Math.floor(digits.length / 3)),
        );
      }),
    );
  });
});

describe("normalizeIdentifier", () => {
  it("compares emails without case, msisdn by digits and '+', anything else without spaces or case", () => {
    expect(normalizeIdentifier("email", "  Amina@Example.COM ")).toBe("amina@example.com");
    expect(normalizeIdentifier("Email", "Amina@Example.COM")).toBe("amina@example.com");
    expect(normalizeIdentifier("MSISDN", "+254 (712) 345-678")).toBe("+254712345678");
    expect(normalizeIdentifier("national_id", "ab 12 cd")).toBe("AB12CD");
    // As before this rule was written down, so identifiers stored earlier keep matching.
    expect(normalizeIdentifier("phone", "+254-712-345-678")).toBe("+254-712-345-678");
    expect(normalizeIdentifier("email", "Jane@Example.com")).toBe("jane@example.com");
    // A "number" with no digit is compared as text, not as "" like every other such value.
    expect(normalizeIdentifier("msisdn", "n/a")).toBe("N/A");
    expect(normalizeIdentifier("msisdn", "unknown")).not.toBe(normalizeIdentifier("msisdn", "n/a"));
  });
});
