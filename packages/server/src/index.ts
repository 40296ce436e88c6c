export type { CliIo } from "./cli/io.js";
export { main } from "./cli/main.js";
export * from "./config/index.js";
export * from "./crypto/index.js";
export {
  type Credentials,
  demoConfig,
  ensureDemo,
  fundDemoOnce,
  readCredentials,
} from "./demo/demo-setup.js";
export { defaultDatabaseUrl, redactDatabaseUrl, resolveDatabaseUrl } from "./server/database-url.js";
export { defaultJobIntervalMs, type JobName, jobNames } from "./server/jobs.js";
export { createLogger, type Logger, redactedPaths, silentLogger } from "./server/logger.js";
export {
  createCoreDeps,
  type OpenedLedger,
  type OpenLedgerOptions,
  openCheckedStore,
  openLedger,
  systemClock,
} from "./server/open-ledger.js";
export {
  type AutoOutcomeRule,
  applySandboxPayoutOutcomes,
  autoOutcomeRules,
} from "./server/sandbox-payouts.js";
export { type ScheduledJob, type Scheduler, startScheduler } from "./server/scheduler.js";
export { type RunningServer, type StartServerOptions, startServer } from "./server/start-server.js";
export { StartupError } from "./startup-error.js";
