/**
 * A config file that cannot be used. The message is always one line naming the JSON path, e.g.
 * `config: tenants[0].signingKeys[1].kid: duplicate kid "k1"`, so the CLI can print it as the
 * reason it exits.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    /** JSON path of the offending value (`tenants[0].scopes[2]`), empty for the whole file. */
    readonly path: string,
    readonly issue: string,
  ) {
    super(oneLine(path === "" ? `config: ${issue}` : `config: ${path}: ${issue}`));
  }
}

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, " ");

/** `["tenants", 0, "kid"]` -> `tenants[0].kid`; keys that are not identifiers are quoted. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
