import { randomBytes } from "node:crypto";
import type { UnitOfWork, WebhookConfig, WebhookSecret } from "@wallet/ledger-core";
import { DomainError, notFound } from "@wallet/ledger-core";

/** After a rotation the previous secret keeps verifying for this long (spec: 24 hours). */
export const webhookSecretOverlapSeconds = 86_400;

const kidPattern = /^[A-Za-z0-9._-]{1,64}$/;
const secretLengthMin = 16;
const secretLengthMax = 512;

const timeOf = (iso: string): number => {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) throw new Error(`Invariant violated: secret createdAt is not a timestamp`);
  return t;
};

/** A copy of the secrets, oldest first: the order every rotation rule reads them in. */
const inCreationOrder = <S extends Pick<WebhookSecret, "createdAt">>(secrets: readonly S[]): S[] =>
  [...secrets].sort((a, b) => timeOf(a.createdAt) - timeOf(b.createdAt));

/**
 * How long before its predecessor stops verifying a rotated secret takes over signing: the
 * receivers' timestamp tolerance, so the last delivery the old secret signed is still fresh when
 * the old secret ends, and no receiver judging at its own clock refuses it.
 */
export const webhookSignerLeadSeconds = 300;

/**
 * The secret that signs at `now`. A secret that replaced another signs from its `signsFrom` when
 * set (a rotation marked immediate: its `createdAt`), else from its predecessor's end (24 h after
 * its `createdAt`) less `webhookSignerLeadSeconds`; until then the predecessor signs, so a receiver
 * has the overlap to install the new secret before any delivery needs it (the spec: "the old kid
 * keeps working for 24 hours"). A tenant's first secret signs from its creation. When no secret
 * has started (every one dated in the future: a clock skew at seeding), the earliest, so delivery
 * does not stall. Null when there is no secret.
 */
export function signingSecretOf(
  webhook: Pick<WebhookConfig, "secrets">,
  now: Date,
  overlapSeconds = webhookSecretOverlapSeconds,
): WebhookSecret | null {
  const sorted = inCreationOrder(webhook.secrets);
  const signsFrom = (i: number) => signsFromAt(sorted, i, overlapSeconds);
  let current: WebhookSecret | undefined;
  sorted.forEach((secret, i) => {
    if (signsFrom(i) <= now.getTime()) current = secret;
  });
  return current ?? sorted[0] ?? null;
}

/**
 * When each secret stops verifying: `overlapSeconds` after the next newer secret was created, the
 * instant that one starts signing; null for the newest (it has no end). Receivers and pruning use
 * the same rule.
 */
export function secretValidUntil(
  secrets: readonly Pick<WebhookSecret, "kid" | "createdAt">[],
  overlapSeconds = webhookSecretOverlapSeconds,
): Map<string, Date | null> {
  const sorted = inCreationOrder(secrets);
  return new Map(
    sorted.map((s, i) => {
      const next = sorted.slice(i + 1).find((n) => timeOf(n.createdAt) > timeOf(s.createdAt));
      return [s.kid, next ? new Date(timeOf(next.createdAt) + overlapSeconds * 1000) : null];
    }),
  );
}

/**
 * Adds a new signing secret (pure; returns a new config). The previous one keeps signing for 24 h
 * and the new one signs from then on (`signingSecretOf`); secrets whose overlap had already ended
 * at `createdAt` are dropped so the list stays short. Refuses a reused kid (Conflict) and a
 * malformed kid, secret or date (InvalidRequest).
 *
 * @example
 *   tenant.webhook = rotateWebhookSecret(tenant.webhook, newWebhookSecret(clock.now()));
 */
export function rotateWebhookSecret(webhook: WebhookConfig, next: WebhookSecret): WebhookConfig {
  if (!kidPattern.test(next.kid)) {
    throw new DomainError("InvalidRequest", "kid must be 1-64 characters of A-Z a-z 0-9 . _ -", [
      { field: "kid", issue: "invalid" },
    ]);
  }
  if (next.secret.length < secretLengthMin || next.secret.length > secretLengthMax) {
    throw new DomainError(
      "InvalidRequest",
      `secret must be ${secretLengthMin}-${secretLengthMax} characters`,
      [{ field: "secret", issue: "invalid" }],
    );
  }
  const createdAtMs = Date.parse(next.createdAt);
  if (!Number.isFinite(createdAtMs)) {
    throw new DomainError("InvalidRequest", "createdAt must be an ISO-8601 timestamp", [
      { field: "createdAt", issue: "invalid" },
    ]);
  }
  if (webhook.secrets.some((s) => s.kid === next.kid)) {
    throw new DomainError("Conflict", "a webhook secret with this kid already exists");
  }
  if (webhook.secrets.some((s) => timeOf(s.createdAt) >= createdAtMs)) {
    throw new DomainError("InvalidRequest", "a new secret must be newer than every existing one", [
      { field: "createdAt", issue: "not_newest" },
    ]);
  }
  if (next.signsFrom !== undefined && !(Date.parse(next.signsFrom) >= createdAtMs)) {
    throw new DomainError("InvalidRequest", "signsFrom must be a timestamp no earlier than createdAt", [
      { field: "signsFrom", issue: "invalid" },
    ]);
  }
  const secrets = [
    ...webhook.secrets,
    {
      kid: next.kid,
      secret: next.secret,
      createdAt: next.createdAt,
      ...(next.signsFrom !== undefined ? { signsFrom: next.signsFrom } : {}),
    },
  ];
  const validUntil = secretValidUntil(secrets);
  return {
    ...webhook,
    events: [...webhook.events],
    secrets: secrets.filter((s) => {
      const end = validUntil.get(s.kid);
      return end === null || end === undefined || end.getTime() > createdAtMs;
    }),
  };
}

/**
 * A fresh random secret (32 bytes, base64url) with a random kid, dated `now`: what the operator's
 * "POST webhook/secrets" creates and shows once.
 */
export function newWebhookSecret(now: Date, options: RotationOptions = {}): WebhookSecret {
  const createdAt = now.toISOString();
  return {
    kid: `wh_${randomBytes(6).toString("hex")}`,
    secret: `whsec_${randomBytes(32).toString("base64url")}`,
    createdAt,
    ...(options.immediate ? { signsFrom: createdAt } : {}),
  };
}

export interface RotationOptions {
  /**
   * The new secret signs from its creation instead of taking over at the end of the overlap: for a
   * secret that leaked, so that receivers can drop it as soon as they hold the new one. Deliveries
   * a receiver without the new secret refuses meanwhile fail and are re-queued by the operator.
   */
  immediate?: boolean | undefined;
}

/** When `kid` starts (or started) signing, under `signingSecretOf`'s rule; null for an unknown kid. */
export function signsFromOf(
  webhook: Pick<WebhookConfig, "secrets">,
  kid: string,
  overlapSeconds = webhookSecretOverlapSeconds,
): Date | null {
  const sorted = inCreationOrder(webhook.secrets);
  const i = sorted.findIndex((s) => s.kid === kid);
  return i < 0 ? null : new Date(signsFromAt(sorted, i, overlapSeconds));
}

/** When the secret at `i` of the creation-ordered list starts signing. */
function signsFromAt(sorted: readonly WebhookSecret[], i: number, overlapSeconds: number): number {
  const s = sorted[i]!;
  if (i === 0) return timeOf(s.createdAt);
  if (s.signsFrom !== undefined) return timeOf(s.signsFrom);
  return timeOf(s.createdAt) + Math.max(0, overlapSeconds - webhookSignerLeadSeconds) * 1000;
}

/**
 * The operator's `POST /admin/tenants/{tenantId}/webhook/secrets`: creates a random secret, which
 * signs from `now` if it is the tenant's first or `immediate`, else once the previous one's overlap
 * ends (`signingSecretOf`); stores the tenant and returns the secret (shown once; never logged).
 * NotFound for an unknown tenant.
 *
 * @example
 *   const { kid, secret, createdAt } = await addTenantWebhookSecret(uow, "acme", clock.now());
 */
export async function addTenantWebhookSecret(
  uow: UnitOfWork,
  tenantId: string,
  now: Date,
  options: RotationOptions = {},
): Promise<WebhookSecret> {
  const created = newWebhookSecret(now, options);
  return uow.run(async (tx) => {
    const tenant = (await tx.tenants.getForUpdate(tenantId)) ?? notFound("Tenant");
    await tx.tenants.upsert({ ...tenant, webhook: rotateWebhookSecret(tenant.webhook, created) });
    return created;
  });
}
