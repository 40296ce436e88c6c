export { ConfigError, formatJsonPath } from "./config-error.js";
export { type ConfigIssue, crossCheck, parseCidr } from "./cross-check.js";
export { loadConfig, parseConfig } from "./load-config.js";
export {
  configSchema,
  defaultRateLimit,
  defaultWebhookSettings,
  type FeeScheduleConfig,
  feeOperationTypes,
  type TenantConfig,
  type WalletConfig,
} from "./schema.js";
export { type SeedReport, seedFromConfig } from "./seed.js";
export { toCatalog, toSigningKeys, toTenant, toTenants } from "./to-core.js";
