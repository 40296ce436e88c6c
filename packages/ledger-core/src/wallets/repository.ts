import type { Customer } from "../customers/model.js";
import type { Wallet, WalletStatus } from "./model.js";

export interface WalletRepository {
  insert(w: Wallet): Promise<void>;
  get(tenantId: string, uid: string): Promise<Wallet | null>;
  /** The tenant's wallet and its customer, read together (one statement on the SQL stores). */
  getWithCustomer(tenantId: string, uid: string): Promise<{ wallet: Wallet; customer: Customer } | null>;
  /** Unscoped lookup for the operator API. */
  getAny(uid: string): Promise<Wallet | null>;
  listByCustomer(tenantId: string, customerUid: string): Promise<Wallet[]>;
  setStatus(tenantId: string, uid: string, status: WalletStatus): Promise<void>;
  setKycTier(tenantId: string, uid: string, tierCode: string): Promise<void>;
}
