// Prints "N passed, M failed" from vitest's JSON report so a run that executed no test is visible.
// A test file that failed before running any test (an import error, a crash in a hook) counts as
// one failure, so it cannot hide behind "0 failed". Exits non-zero when the report is missing, no
// test ran, or anything failed.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? ".vitest-report.json";
if (!existsSync(file)) {
  console.error(`no test report at ${file}`);
  console.log("0 passed, 0 failed");
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, "utf8"));
const passed = r.numPassedTests ?? 0;
const brokenFiles = (r.testResults ?? []).filter(
  (t) => t.status === "failed" && !(t.assertionResults ?? []).some((a) => a.status === "failed"),
);
for (const t of brokenFiles)
  console.log(`failed without running its tests: ${t.name}: ${(t.message ?? "").split("\n")[0]}`);
const failed = (r.numFailedTests ?? 0) + brokenFiles.length;
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
