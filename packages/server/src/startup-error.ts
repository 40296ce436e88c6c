/** A reason the server cannot start (bad environment, unreachable database), printed as one line. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}
