import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const packages = ["ledger-core", "persistence", "http-adapter", "webhooks", "server", "client"] as const;
const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/`, import.meta.url));

// Tests run against the TypeScript sources, so `pnpm test` needs no build first.
const alias = [
  { find: "@wallet/ledger-core/memory", replacement: `${src("ledger-core")}memory/index.ts` },
  ...packages.map((p) => ({ find: new RegExp(`^@wallet/${p}$`), replacement: `${src(p)}index.ts` })),
];

export default defineConfig({
  test: {
    globalSetup: ["./scripts/postgres-notice.ts", "./scripts/test-tmpdir.ts"],
    projects: packages.map((name) => ({
      resolve: { alias },
      test: {
        name,
        root: `./packages/${name}`,
        include: ["src/**/*.test.ts", "test/**/*.test.ts"],
        setupFiles: ["../../scripts/test-tmpdir-worker.ts"],
        testTimeout: 30_000,
        hookTimeout: 60_000,
      },
    })),
  },
});
