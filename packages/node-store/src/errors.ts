/**
 * The errors this package throws, as classes callers can test with `instanceof`, and the one
 * way it reads the `code` of an error from `node:fs`.
 */

/** The `code` of an fs error (`ENOENT`, `EEXIST`, ...), or undefined. */
export function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

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

/**
 * The cross-process lock could not be taken within the timeout. `owner` is what the lock file
 * last said (when it was a lock's); `problem`, when the lock cannot be used at all (a directory
 * or a FIFO at its path, a file that cannot be read, a stale lock that cannot be removed), says
 * what is wrong with it: nothing here removes such a thing, a person must.
 */
export class SessionLockTimeoutError extends Error {
  constructor(
    readonly lockPath: string,
    readonly timeoutMs: number,
    readonly owner?: unknown,
    readonly problem?: string,
  ) {
    super(
      problem === undefined
        ? `Timed out after ${timeoutMs} ms waiting for the session lock ${lockPath}`
        : `Timed out after ${timeoutMs} ms waiting for the session lock ${lockPath}: ${problem} (remove it if no writer uses it)`,
    );
    this.name = "SessionLockTimeoutError";
  }
}

/** What a non-regular file is, in words: "a directory", "a FIFO", "a socket", ... */
export type NonRegularKind =
  | "a directory"
  | "a FIFO"
  | "a socket"
  | "a character device"
  | "a block device"
  | "a symbolic link"
  | "not a regular file";

/**
 * The path names a directory, FIFO, socket or device, not a regular file. Only regular files
 * are sessions (and locks): such a path is never opened for reading (a FIFO would block the
 * read forever). `code` is `EISDIR` for a directory (what reading one gives), else `ENOTREG`.
 */
export class SessionFileNotRegularError extends Error {
  readonly code: "EISDIR" | "ENOTREG";
  constructor(
    readonly path: string,
    readonly kind: NonRegularKind,
  ) {
    super(`Not a regular file (${kind}): ${path}`);
    this.name = "SessionFileNotRegularError";
    this.code = kind === "a directory" ? "EISDIR" : "ENOTREG";
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

/**
 * A lazily opened session file (see `read/open-scan.ts`) no longer holds, at a position the
 * open recorded, the line it held then: it was rewritten in place (by a writer that takes no
 * lock, or by hand). Nothing wrong is returned; open the file again.
 */
export class SessionFileRewrittenError extends Error {
  constructor(
    readonly path: string,
    /** Byte offset of the line that no longer matches. */
    readonly offset: number,
  ) {
    super(`Session file was rewritten in place since it was opened; open it again: ${path}`);
    this.name = "SessionFileRewrittenError";
  }
}
