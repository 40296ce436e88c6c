/** One fenced code block of a Markdown page. */
export interface FencedBlock {
  /** The first word of the info string: `ts`, `sh`, `python`, `text`, `json`... */
  lang: string;
  /** The other words: `test`, `output`, `background`, `postgres`. */
  tags: string[];
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** A block to run, with the output it must print when an `output` block follows it. */
export interface Sample extends FencedBlock {
  expectedOutput: string | undefined;
}

/** Languages that are code a reader would run: every such block of a tested page must be tested. */
export const codeLanguages = new Set([
  "ts",
  "typescript",
  "js",
  "javascript",
  "sh",
  "bash",
  "shell",
  "python",
  "py",
]);

/** Every fenced block (``` or ~~~, any length of three or more), in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const [lang = "", ...tags] = info.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? "";
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    if (j >= lines.length) throw new Error(`unclosed code fence at line ${i + 1}`);
    blocks.push({ lang, tags, code: `${body.join("\n")}\n`, line: i + 1 });
    i = j;
  }
  return blocks;
}

/**
 * The samples of a page: blocks tagged `test`, each with the `text output` block that follows it
 * (if any). Throws when a code block is not tagged `test`, or an output block follows no sample:
 * an untested sample is the one that rots.
 */
export function samplesOf(markdown: string, page: string): Sample[] {
  const blocks = fencedBlocks(markdown);
  const samples: Sample[] = [];
  for (const [i, block] of blocks.entries()) {
    const where = `${page}:${block.line}`;
    if (block.tags.includes("output")) {
      const last = samples.at(-1);
      if (last === undefined || last.expectedOutput !== undefined || blocks[i - 1]?.line !== last.line) {
        throw new Error(`${where}: an output block must directly follow a test block`);
      }
      last.expectedOutput = block.code;
      continue;
    }
    if (block.tags.includes("test")) {
      samples.push({ ...block, expectedOutput: undefined });
      continue;
    }
    if (codeLanguages.has(block.lang)) {
      throw new Error(
        `${where}: a ${block.lang} block must be tagged \`test\` (every code sample is executed)`,
      );
    }
  }
  return samples;
}

/**
 * Whether `actual` is what the output block shows: line by line, trailing spaces ignored, and
 * `…` in the expected text matching any run of characters within its line (uids, times).
 */
export function outputMatches(expected: string, actual: string): boolean {
  const norm = (text: string) =>
    text
      .replace(/\r\n/g, "\n")
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n")
      .trim();
  const pattern = norm(expected)
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^\\n]*?");
  return new RegExp(`^${pattern}$`).test(norm(actual));
}
