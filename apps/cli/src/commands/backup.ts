/**
 * How the explicit write commands (`name`, `label`) add one entry to a session: through the
 * SDK, which appends with node-store's locked appender (`SessionWriter`: one write, no copy of
 * the file, no rewrite), so a v3 file gets no backup (an append cannot destroy anything). A
 * v1/v2 file must be converted to v3 first, which is a rewrite: the SDK keeps the previous
 * bytes as `<file>.v<N>.bak`, the one backup, and the command says so on stderr. Also their
 * one-line report.
 */
import { detectVersion } from "@pi-session/format";
import { migrationBackupPath, scanHeaderSync } from "@pi-session/node-store";
import { SessionManager } from "@pi-session/sdk";
import { CliError } from "../errors.js";
import type { Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { readFailure } from "../unreadable.js";
import { sessionPath } from "./common.js";

/** What an append did to the file besides the entry. */
export interface AppendOutcome {
  path: string;
  /** The version the file was converted from, or null when it was v3 (a plain append). */
  convertedFrom: number | null;
  /** The backup the conversion kept, or null (a v3 append keeps none). */
  backupPath: string | null;
}

function notASession(path: string, e: unknown): CliError {
  const failure = readFailure(path, e);
  if (failure instanceof CliError) return failure;
  return new CliError(e instanceof Error ? e.message : String(e), {
    hint: "Run `pi-session validate` on the file.",
  });
}

/** The version of the file's header (1 when it has none), or a clear error when it is no session. */
function versionOf(path: string): number {
  let header: ReturnType<typeof scanHeaderSync>;
  try {
    header = scanHeaderSync(path);
  } catch (e) {
    throw notASession(path, e);
  }
  if (!header) throw notASession(path, new Error(`${path}: not a pi session: no session header`));
  return detectVersion(header);
}

/**
 * Opens the session and runs `write` (which appends one entry); for a v1/v2 file, says on
 * stderr that the file was converted, and where its backup is (`what`: "the name").
 */
export async function appendTo<T>(
  ctx: Context,
  arg: unknown,
  what: string,
  write: (path: string, manager: SessionManager, outcome: AppendOutcome) => T,
): Promise<T> {
  const path = await sessionPath(ctx, arg);
  const version = versionOf(path);
  let manager: SessionManager;
  try {
    manager = SessionManager.open(path);
  } catch (e) {
    throw notASession(path, e);
  }
  // The name the SDK's migrating rewrite will give the backup (the first free one).
  const backupPath = version < 3 ? migrationBackupPath(path, version) : null;
  const outcome: AppendOutcome = { path, convertedFrom: version < 3 ? version : null, backupPath };
  let result: T;
  try {
    result = write(path, manager, outcome);
  } finally {
    // The append's lock and descriptor end with the command (runCli's contract), not the process.
    manager.close();
  }
  if (outcome.convertedFrom !== null)
    ctx.io.info(
      oneLineField(`converted v${outcome.convertedFrom} -> v3 to add ${what}; backup: ${backupPath}`),
    );
  return result;
}

/** `data` as JSON, or `text` as one line (a `\n` in a path is shown, not obeyed). */
export function report(ctx: Context, data: Record<string, unknown>, text: string): void {
  if (ctx.json) ctx.io.printJson(data);
  else ctx.io.line(oneLineField(text));
}
