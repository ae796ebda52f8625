/**
 * The errors this package throws, as classes callers can test with `instanceof`.
 */

/** The session file does not exist (`code` is `ENOENT`, like the fs error it replaces). */
export class SessionFileNotFoundError extends Error {
  readonly code = "ENOENT";
  constructor(readonly path: string) {
    super(`Session file not found: ${path}`);
    this.name = "SessionFileNotFoundError";
  }
}

/** The header scan read `maxBytes` without finding a complete line (pi's message). */
export class SessionHeaderScanLimitError extends Error {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`Session header exceeds ${maxBytes}-byte scan limit: ${path}`);
    this.name = "SessionHeaderScanLimitError";
  }
}

/**
 * The file an appender writes to was deleted, replaced or cut below what it had seen. The
 * appender refuses to write (pi would recreate it without a header, pi issue #8939).
 */
export class SessionFileChangedError extends Error {
  constructor(
    readonly path: string,
    /**
     * `appended`: it grew where it must not have: past the size a rewrite was told to expect,
     * or, without the lock, while its torn tail was being repaired.
     */
    readonly reason: "deleted" | "truncated" | "replaced" | "appended",
  ) {
    super(`Session file was ${reason} by someone else; refusing to write: ${path}`);
    this.name = "SessionFileChangedError";
  }
}

/** The cross-process lock could not be taken within the timeout. */
export class SessionLockTimeoutError extends Error {
  constructor(
    readonly lockPath: string,
    readonly timeoutMs: number,
    readonly owner?: unknown,
  ) {
    super(`Timed out after ${timeoutMs} ms waiting for the session lock ${lockPath}`);
    this.name = "SessionLockTimeoutError";
  }
}

/** Creating a session file failed because it already exists (`wx`). */
export class SessionFileExistsError extends Error {
  readonly code = "EEXIST";
  constructor(readonly path: string) {
    super(`Session file already exists: ${path}`);
    this.name = "SessionFileExistsError";
  }
}
