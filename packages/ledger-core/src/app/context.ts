import type { IdGenerator } from "../shared/ids.js";
import type { Clock, Hasher, PiiVault } from "../shared/ports.js";
import type { Catalog } from "../tenants/catalog.js";
import type { Scope, Tenant } from "../tenants/model.js";

/** What every use case may use besides the transaction. No I/O beyond the ports. */
export interface CoreDeps {
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  vault: PiiVault;
  catalog: Catalog;
}

/** Who is asking: resolved by authentication, passed explicitly (no ambient request state). */
export interface RequestContext {
  tenant: Tenant;
  /** Signing key id of the request (audit), null for operator or system actions. */
  kid: string | null;
  requestId: string | null;
  scopes: readonly Scope[];
}
