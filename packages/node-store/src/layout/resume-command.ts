/**
 * The command that opens a session in pi, as a person types it: `cd <its directory> && pi
 * --session <file>` (pi runs a session in the directory it was made in), or `pi --fork <file>`
 * from the current directory for a session whose directory is gone (pi copies it into a new
 * session there). Pure text. Use {@link resumeCommand} wherever a resume is shown or run (the
 * CLI's `resume`, the web app's session page).
 */

/** `text` as one POSIX shell word: bare when it is plain, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

export interface ResumeCommand {
  /** The directory to run pi in; undefined: the current one. */
  cwd: string | undefined;
  /** pi's arguments. */
  args: string[];
  /** The whole line for a shell: `cd <cwd> && pi <args>`, each word quoted as needed. */
  line: string;
}

/**
 * How to resume the session file `path` whose header names `cwd`: in that directory, or with
 * `fork` from the current directory (`pi --fork`). `sessionDir`: a custom store pi should keep
 * what it writes in (`--session-dir`). `here`: the current directory, when known: no `cd` to it.
 */
export function resumeCommand(
  path: string,
  opts: { cwd: string | undefined; fork?: boolean; sessionDir?: string | undefined; here?: string },
): ResumeCommand {
  const store = opts.sessionDir !== undefined ? ["--session-dir", opts.sessionDir] : [];
  const args = opts.fork === true ? ["--fork", path, ...store] : ["--session", path, ...store];
  const cwd = opts.fork === true ? undefined : opts.cwd;
  const pi = ["pi", ...args].map(shellQuote).join(" ");
  const line = cwd === undefined || cwd === opts.here ? pi : `cd ${shellQuote(cwd)} && ${pi}`;
  return { cwd, args, line };
}
