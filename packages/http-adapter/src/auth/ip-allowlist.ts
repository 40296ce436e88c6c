import { BlockList, isIP } from "node:net";

/**
 * A tenant's IP allowlist: CIDR blocks, IPv4 and IPv6. node:net's BlockList matches an
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a dual-stack socket reports) against IPv4 rules
 * and the other way round. An entry that does not parse is skipped: it can only narrow the list.
 */
export class IpAllowlist {
  readonly #list = new BlockList();
  /** any: empty list; none: every entry was invalid, which admits nobody rather than everybody. */
  readonly #mode: "any" | "list" | "none";

  constructor(cidrs: readonly string[]) {
    let added = 0;
    for (const cidr of cidrs) {
      const parsed = parseCidr(cidr);
      if (parsed === null) continue;
      this.#list.addSubnet(parsed.network, parsed.prefix, parsed.family);
      added++;
    }
    this.#mode = cidrs.length === 0 ? "any" : added === 0 ? "none" : "list";
  }

  /** True when the list is empty (any address) or holds `address`. */
  allows(address: string | undefined): boolean {
    if (this.#mode === "any") return true;
    if (this.#mode === "none" || address === undefined) return false;
    const bare = address.replace(/%.*$/, ""); // IPv6 zone id
    const version = isIP(bare);
    if (version === 0) return false;
    return this.#list.check(bare, version === 4 ? "ipv4" : "ipv6");
  }
}

function parseCidr(cidr: string): { network: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [network = "", prefixText, ...rest] = cidr.trim().split("/");
  if (rest.length > 0) return null;
  const version = isIP(network);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  const prefix =
    prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) return null;
  return { network, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** Parsed allowlists, cached by their content (tenants are re-read on every request). */
export class IpAllowlistCache {
  readonly #lists = new Map<string, IpAllowlist>();

  constructor(private readonly listsMax = 1000) {}

  get(cidrs: readonly string[]): IpAllowlist {
    const key = cidrs.join(",");
    let list = this.#lists.get(key);
    if (list === undefined) {
      if (this.#lists.size >= this.listsMax) this.#lists.clear();
      list = new IpAllowlist(cidrs);
      this.#lists.set(key, list);
    }
    return list;
  }
}
