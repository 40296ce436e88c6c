import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskIdentifier } from "../src/customers/masking.js";

/** True when `s` holds a surrogate without its other half. */
const hasLoneSurrogate = (s: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("maskIdentifier", () => {
  it("masks the usual kinds", () => {
    expect(maskIdentifier("msisdn", "+254712345678")).toBe("+2547******78");
    expect(maskIdentifier("email", "jane@example.com")).toBe("j***@example.com");
    expect(maskIdentifier("national_id", "12345678")).toBe("****5678");
    expect(maskIdentifier("national_id", "ab")).toBe("***");
  });

  it("cuts between characters, never through a surrogate pair", () => {
    // Four emoji then a letter: counted in UTF-16 units (9), the kept part began inside the third
    // emoji; counted in characters (5), a third is one character.
    expect(maskIdentifier("national_id", "😀😀😀😀a")).toBe("****a");
    expect(maskIdentifier("email", "😀x@example.com")).toBe("😀***@example.com");
  });

  it("leaves no lone surrogate, whatever the value (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("msisdn", "email", "national_id", "passport"),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
        (type, value) => {
          const mask = maskIdentifier(type, value);
          expect(hasLoneSurrogate(mask)).toBe(false);
        },
      ),
    );
  });
});
