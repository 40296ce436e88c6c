import type { Customer } from "../customers/model.js";
import type { Wallet, WalletStatus } from "./model.js";

export interface WalletRepository {
  insert(w: Wallet): Promise<void>;
  get(tenantId: string, uid: string): Promise<Wallet | null>;
  /**
   * The tenant's wallet and its customer, for a use case that decides on their statuses and the
   * KYC level. The wallet's row stays share-locked until the transaction ends (Postgres; SQLite
   * and the memory store run one writer at a time): a change of its status or level, or of its
   * customer's status (which locks the customer's wallets), waits for the movement that read it,
   * and a read made while such a change is in flight waits for it and returns the changed wallet
   * and customer (on Postgres the customer is read after the lock is granted).
   */
  getWithCustomer(tenantId: string, uid: string): Promise<{ wallet: Wallet; customer: Customer } | null>;
  /**
   * `get`, and the wallet's row stays locked until the transaction ends (Postgres; SQLite and the
   * memory store run one writer at a time already). A change decided on the wallet's status (the
   * operator's status change, a KYC decision's credit block) reads it this way, so it decides on
   * the status as it is, and such changes apply one after another.
   */
  getForUpdate(tenantId: string, uid: string): Promise<Wallet | null>;
  /** Unscoped lookup for the operator API. */
  getAny(uid: string): Promise<Wallet | null>;
  listByCustomer(tenantId: string, customerUid: string): Promise<Wallet[]>;
  setStatus(tenantId: string, uid: string, status: WalletStatus): Promise<void>;
  setKycTier(tenantId: string, uid: string, tierCode: string): Promise<void>;
  /**
   * Every KYC level the wallets are at, with the wallets' currency, across tenants: a level's
   * limits are amounts of its currency, so the catalog may not give a level in use another one.
   */
  tierCurrenciesInUse(): Promise<{ kycTierCode: string; currency: string }[]>;
}
