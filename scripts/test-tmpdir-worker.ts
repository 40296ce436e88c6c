import { inject } from "vitest";

// Every test file: its scratch files in the run's own directory (see test-tmpdir.ts).
process.env.TMPDIR = inject("scratchDir");
