/** How many characters of a key a 400 names: a client's keys are echoed, never at any length. */
const KEY_SHOWN_MAX = 100;

/** `key`, or its first `KEY_SHOWN_MAX` characters (code points, not UTF-16 units) and `…`. */
function shownKey(key: string): string {
  if (key.length <= KEY_SHOWN_MAX) return key;
  let out = "";
  let n = 0;
  for (const ch of key) {
    if (n === KEY_SHOWN_MAX) return `${out}…`;
    out += ch;
    n++;
  }
  return out;
}

/**
 * `[{key:"identifiers"},{key:0},{key:"value"}]` -> `identifiers[0].value`. Each key is shown up to
 * 100 characters: an unknown key is the client's text, and a 1 MiB body of them must not come back
 * as a 1 MiB answer.
 */
export function jsonPath(path: readonly { key: unknown }[]): string {
  let out = "";
  for (const { key } of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? shownKey(String(key)) : `.${shownKey(String(key))}`;
  }
  return out;
}
