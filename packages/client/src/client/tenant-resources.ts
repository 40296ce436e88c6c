import { type TenantOperationId, type TenantOperationTypes, tenantRoutes } from "../generated/api-types.js";
import type {
  CallOptions,
  HttpMethod,
  Query,
  RequestOptions,
  WalletResponse,
} from "./create-wallet-client.js";
import { type IterateOptions, iteratePages, PAGE_LIMIT_MAX, type Page } from "./paginate.js";

type Types = TenantOperationTypes;
type Body<Id extends TenantOperationId> = Types[Id]["body"];
type QueryOf<Id extends TenantOperationId> = Types[Id]["query"];
type Response<Id extends TenantOperationId> = Types[Id]["response"];
type Item<Id extends TenantOperationId> = Response<Id> extends Page<infer T> ? T : never;

type Send = <T>(method: HttpMethod, path: string, options?: RequestOptions) => Promise<WalletResponse<T>>;

/**
 * One typed method per tenant route. Paths, methods, bodies, queries and responses all come from
 * the generated `tenantRoutes` and `TenantOperationTypes`, so a route the server changes fails to
 * type-check here once the types are regenerated. Every method takes `CallOptions` last
 * (idempotencyKey, requestId, signal).
 */
export interface TenantResources {
  /** GET /health (unauthenticated). */
  health(options?: CallOptions): Promise<Response<"getHealth">>;
  /** GET /openapi.json: the service's own OpenAPI 3.1 document. */
  openApiDocument(options?: CallOptions): Promise<Response<"getOpenApiDocument">>;
  customers: {
    /** POST /customers: onboard a customer; the answer carries the main wallet's uid. */
    create(body: Body<"onboardCustomer">, options?: CallOptions): Promise<Response<"onboardCustomer">>;
    /** GET /customers/{uid}: the summary with wallets, balances, identifiers and KYC limits. */
    get(uid: string, options?: CallOptions): Promise<Response<"getCustomer">>;
    identifiers: {
      create(
        customerUid: string,
        body: Body<"addIdentifier">,
        options?: CallOptions,
      ): Promise<Response<"addIdentifier">>;
      list(customerUid: string, options?: CallOptions): Promise<Response<"listIdentifiers">>;
      update(
        customerUid: string,
        identifierUid: string,
        body: Body<"updateIdentifier">,
        options?: CallOptions,
      ): Promise<Response<"updateIdentifier">>;
    };
    agreements: {
      create(
        customerUid: string,
        body: Body<"addAgreement">,
        options?: CallOptions,
      ): Promise<Response<"addAgreement">>;
      list(customerUid: string, options?: CallOptions): Promise<Response<"listAgreements">>;
    };
    kycVersions: {
      create(
        customerUid: string,
        body: Body<"submitKycVersion">,
        options?: CallOptions,
      ): Promise<Response<"submitKycVersion">>;
    };
  };
  wallets: {
    /** GET /wallets/{uid}/balance. */
    balance(walletUid: string, options?: CallOptions): Promise<Response<"getWalletBalance">>;
    /** GET /wallets/{uid}/transactions: one page of the statement. */
    transactions(
      walletUid: string,
      query?: QueryOf<"listWalletTransactions">,
      options?: CallOptions,
    ): Promise<Response<"listWalletTransactions">>;
    /** Every statement row matching `query`, page after page (100 a page unless `limit` says otherwise). */
    iterateTransactions(
      walletUid: string,
      query?: QueryOf<"listWalletTransactions">,
      options?: CallOptions & IterateOptions,
    ): AsyncGenerator<Item<"listWalletTransactions">, void, undefined>;
  };
  walletCredits: {
    /** POST /wallet-credits: credit a wallet from the tenant's prefunded balance. */
    create(body: Body<"creditWallet">, options?: CallOptions): Promise<Response<"creditWallet">>;
  };
  walletDebits: {
    /** POST /wallet-debits: debit under a mandate with a fresh assertion (binding target mandateUid). */
    create(body: Body<"debitWallet">, options?: CallOptions): Promise<Response<"debitWallet">>;
  };
  mandates: {
    create(body: Body<"createMandate">, options?: CallOptions): Promise<Response<"createMandate">>;
    get(uid: string, options?: CallOptions): Promise<Response<"getMandate">>;
    list(query?: QueryOf<"listMandates">, options?: CallOptions): Promise<Response<"listMandates">>;
    iterate(
      query?: QueryOf<"listMandates">,
      options?: CallOptions & IterateOptions,
    ): AsyncGenerator<Item<"listMandates">, void, undefined>;
    /** POST /mandates/{uid}/revoke (terminal). */
    revoke(
      uid: string,
      body: Body<"revokeMandate">,
      options?: CallOptions,
    ): Promise<Response<"revokeMandate">>;
    /** POST /mandates/{uid}/debits: debit on the standing mandate alone (no assertion). */
    debit(
      uid: string,
      body: Body<"debitUnderMandate">,
      options?: CallOptions,
    ): Promise<Response<"debitUnderMandate">>;
  };
  fees: {
    /** POST /fees/quote: read-only; the quoteId is valid five minutes (payouts take it as feeQuoteId). */
    quote(body: Body<"quoteFees">, options?: CallOptions): Promise<Response<"quoteFees">>;
  };
  payouts: {
    /** POST /payouts: phase 1; answers 202 with the operation `processing` (binding target destinationIdentifierUid). */
    create(body: Body<"createPayout">, options?: CallOptions): Promise<Response<"createPayout">>;
  };
  topupIntents: {
    create(body: Body<"createTopupIntent">, options?: CallOptions): Promise<Response<"createTopupIntent">>;
    get(uid: string, options?: CallOptions): Promise<Response<"getTopupIntent">>;
  };
  operations: {
    list(query?: QueryOf<"listOperations">, options?: CallOptions): Promise<Response<"listOperations">>;
    /** Every operation matching `query`, page after page (100 a page unless `limit` says otherwise). */
    iterate(
      query?: QueryOf<"listOperations">,
      options?: CallOptions & IterateOptions,
    ): AsyncGenerator<Item<"listOperations">, void, undefined>;
    /** GET /operations/{uid}: with the state timeline and the provider state. */
    get(uid: string, options?: CallOptions): Promise<Response<"getOperation">>;
    /** GET /operations/{uid}/receipt: 404 until the operation has moved funds. */
    receipt(uid: string, options?: CallOptions): Promise<Response<"getReceipt">>;
  };
}

const segment = (value: string): string => {
  if (typeof value !== "string" || value.length === 0)
    throw new TypeError("Resource uid must be a non-empty string");
  return encodeURIComponent(value);
};

/** The route's path with each `{param}` replaced, in order, by an encoded value. */
function pathOf(id: TenantOperationId, values: readonly string[]): string {
  const route = tenantRoutes[id];
  const names: readonly string[] = route.pathParams;
  if (values.length !== names.length) throw new Error(`${id}: expected ${names.length} path values`);
  let path: string = route.path;
  names.forEach((name, i) => {
    path = path.replace(`{${name}}`, segment(values[i] as string));
  });
  return path;
}

/** The method table of a client whose `send` signs and sends (see createWalletClient). */
export function tenantResources(send: Send): TenantResources {
  const invoke = async <Id extends TenantOperationId>(
    id: Id,
    pathValues: readonly string[],
    input: { body?: Body<Id>; query?: QueryOf<Id> | undefined },
    options: CallOptions | undefined,
  ): Promise<Response<Id>> => {
    const requestOptions: RequestOptions = { ...options };
    if (input.body !== undefined) requestOptions.body = input.body;
    if (input.query !== undefined) requestOptions.query = input.query as Query;
    const answer = await send<Response<Id>>(tenantRoutes[id].method, pathOf(id, pathValues), requestOptions);
    return answer.body;
  };

  /** An iterator over a list route; `limit` defaults to the largest page. */
  const iterate = <Id extends "listOperations" | "listMandates" | "listWalletTransactions">(
    id: Id,
    pathValues: readonly string[],
    query: QueryOf<Id> | undefined,
    options: (CallOptions & IterateOptions) | undefined,
    keyOf: (item: Item<Id>) => string,
  ) => {
    const { maxPages, ...callOptions } = options ?? {};
    // A destructuring default, so that `limit: undefined` (which the query types accept) still
    // means the largest page rather than the server's default.
    const { limit = PAGE_LIMIT_MAX, ...rest } = query ?? {};
    const base = { limit, ...rest } as Record<string, unknown>;
    const firstPage = Number(base.page ?? 1);
    if (!Number.isSafeInteger(firstPage) || firstPage < 1) throw new TypeError("iterate: page must be >= 1");
    const fetchPage = async (page: number) =>
      (await invoke(id, pathValues, { query: { ...base, page } as QueryOf<Id> }, callOptions)) as Page<
        Item<Id>
      >;
    return iteratePages(fetchPage, keyOf, firstPage, maxPages === undefined ? {} : { maxPages });
  };

  return {
    health: (o) => invoke("getHealth", [], {}, o),
    openApiDocument: (o) => invoke("getOpenApiDocument", [], {}, o),
    customers: {
      create: (body, o) => invoke("onboardCustomer", [], { body }, o),
      get: (uid, o) => invoke("getCustomer", [uid], {}, o),
      identifiers: {
        create: (customerUid, body, o) => invoke("addIdentifier", [customerUid], { body }, o),
        list: (customerUid, o) => invoke("listIdentifiers", [customerUid], {}, o),
        update: (customerUid, identifierUid, body, o) =>
          invoke("updateIdentifier", [customerUid, identifierUid], { body }, o),
      },
      agreements: {
        create: (customerUid, body, o) => invoke("addAgreement", [customerUid], { body }, o),
        list: (customerUid, o) => invoke("listAgreements", [customerUid], {}, o),
      },
      kycVersions: {
        create: (customerUid, body, o) => invoke("submitKycVersion", [customerUid], { body }, o),
      },
    },
    wallets: {
      balance: (walletUid, o) => invoke("getWalletBalance", [walletUid], {}, o),
      transactions: (walletUid, query, o) => invoke("listWalletTransactions", [walletUid], { query }, o),
      iterateTransactions: (walletUid, query, o) =>
        iterate("listWalletTransactions", [walletUid], query, o, (item) => item.operationUid),
    },
    walletCredits: { create: (body, o) => invoke("creditWallet", [], { body }, o) },
    walletDebits: { create: (body, o) => invoke("debitWallet", [], { body }, o) },
    mandates: {
      create: (body, o) => invoke("createMandate", [], { body }, o),
      get: (uid, o) => invoke("getMandate", [uid], {}, o),
      list: (query, o) => invoke("listMandates", [], { query }, o),
      iterate: (query, o) => iterate("listMandates", [], query, o, (item) => item.uid),
      revoke: (uid, body, o) => invoke("revokeMandate", [uid], { body }, o),
      debit: (uid, body, o) => invoke("debitUnderMandate", [uid], { body }, o),
    },
    fees: { quote: (body, o) => invoke("quoteFees", [], { body }, o) },
    payouts: { create: (body, o) => invoke("createPayout", [], { body }, o) },
    topupIntents: {
      create: (body, o) => invoke("createTopupIntent", [], { body }, o),
      get: (uid, o) => invoke("getTopupIntent", [uid], {}, o),
    },
    operations: {
      list: (query, o) => invoke("listOperations", [], { query }, o),
      iterate: (query, o) => iterate("listOperations", [], query, o, (item) => item.uid),
      get: (uid, o) => invoke("getOperation", [uid], {}, o),
      receipt: (uid, o) => invoke("getReceipt", [uid], {}, o),
    },
  };
}
