import type { Wallet, WalletStatus } from "./model.js";

export interface WalletRepository {
  insert(w: Wallet): Promise<void>;
  get(tenantId: string, uid: string): Promise<Wallet | null>;
  /** Unscoped lookup for the operator API. */
  getAny(uid: string): Promise<Wallet | null>;
  listByCustomer(tenantId: string, customerUid: string): Promise<Wallet[]>;
  setStatus(tenantId: string, uid: string, status: WalletStatus): Promise<void>;
  setKycTier(tenantId: string, uid: string, tierCode: string): Promise<void>;
}
