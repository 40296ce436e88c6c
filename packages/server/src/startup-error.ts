/** A reason the server cannot start (bad environment, unreachable database), printed as one line. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The first line of an error's message: what a one-line startup or CLI error shows. */
export const firstLine = (e: unknown): string => {
  const text = e instanceof Error ? e.message || e.name : String(e);
  return text.split(/\r?\n/)[0]?.trim() || "unknown error";
};
