import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeFileSync } from "node:fs";

/**
 * Creates `file` holding `content`, whole or not at all, and never replaces a file of that name
 * (another process's key, an earlier run's, the user's): written and synced under a temporary
 * name, then linked into place, which fails if the name exists. A process killed midway leaves at
 * most the temporary file, never an empty or partial one. Returns false when `file` existed.
 */
export function createFileOnce(file: string, content: string, mode: number): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", mode);
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== undefined && noHardLinks.has(code)) return createInPlace(file, content, mode);
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/** What a file system without hard links (some network and FUSE mounts) answers to link(). */
const noHardLinks = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** Where no hard link can be made: exclusive create in place (still never replaces a file). */
function createInPlace(file: string, content: string, mode: number): boolean {
  try {
    writeFileSync(file, content, { flag: "wx", mode });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}
