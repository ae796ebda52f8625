/**
 * The explicit write commands built on the SDK's `SessionManager`: `name`, `label` (one
 * appended entry each, as pi writes it) and `fork` (a new file). Before the session is even
 * opened, its bytes are copied to `<file>.bak-<time>`, so the backup holds the previous bytes
 * whatever the SDK then writes (an appended line, or for a v1/v2 file the migrated v3 form,
 * for which the SDK keeps its own `<file>.v1.bak` too). A failed command removes its backup.
 */
import { closeSync, existsSync, fchmodSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { openRegularFileSync, scanHeaderSync } from "@pi-session/node-store";
import { SessionManager } from "@pi-session/sdk";
import { CliError, UsageError } from "../errors.js";
import type { Action, Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { entryId, sessionPath, stringOption } from "./common.js";

/**
 * Copies `path` to a new `<path>.bak-<time>[-n]` (never over an existing file). Only a regular
 * file is copied, read through node-store's `openRegularFileSync` (a FIFO named like a session
 * would block a plain copy for ever); the copy gets the file's permissions.
 */
function backup(path: string): string {
  const base = `${path}.bak-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  let source: ReturnType<typeof openRegularFileSync>;
  try {
    source = openRegularFileSync(path);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
  try {
    for (let n = 0; ; n++) {
      const target = n === 0 ? base : `${base}-${n}`;
      let out: number;
      try {
        out = openSync(target, "wx", source.stats.mode & 0o777);
      } catch (error) {
        if ((error as { code?: string }).code === "EEXIST") continue;
        throw error;
      }
      try {
        // As a copy keeps them (the open's mode is cut by the umask).
        fchmodSync(out, source.stats.mode & 0o777);
        copyFd(source.fd, out);
      } catch (error) {
        closeSync(out);
        unlinkSync(target);
        throw error;
      }
      closeSync(out);
      return target;
    }
  } finally {
    closeSync(source.fd);
  }
}

/** Copies the whole of `from` (read by position) to `to`. */
function copyFd(from: number, to: number): void {
  const buf = Buffer.allocUnsafe(1024 * 1024);
  for (let pos = 0; ; ) {
    const n = readSync(from, buf, 0, buf.length, pos);
    if (n === 0) return;
    for (let done = 0; done < n; ) done += writeSync(to, buf, done, n - done);
    pos += n;
  }
}

/**
 * Backs the session up, opens it and runs `write`; the backup is removed again when nothing
 * was written (the file is not a session, the entry id is unknown, the write failed).
 */
async function withBackup<T>(
  ctx: Context,
  arg: unknown,
  write: (path: string, manager: SessionManager, backupPath: string) => T,
): Promise<T> {
  const path = await sessionPath(ctx, arg);
  const backupPath = backup(path);
  try {
    let manager: SessionManager;
    try {
      manager = SessionManager.open(path);
    } catch (e) {
      throw new CliError(e instanceof Error ? e.message : String(e), {
        hint: "Run `pi-session validate` on the file.",
      });
    }
    return write(path, manager, backupPath);
  } catch (error) {
    try {
      unlinkSync(backupPath);
    } catch {
      // Already gone: nothing to clean up.
    }
    throw error;
  }
}

/** `data` as JSON, or `text` as one line (a `\n` in a path is shown, not obeyed). */
function report(ctx: Context, data: Record<string, unknown>, text: string): void {
  if (ctx.json) ctx.io.printJson(data);
  else ctx.io.line(oneLineField(text));
}

export const name: Action = async (ctx, [arg, value]) => {
  if (typeof value !== "string") throw new UsageError("missing <name>");
  return withBackup(ctx, arg, (path, manager, backupPath) => {
    const id = manager.appendSessionInfo(value);
    report(
      ctx,
      { file: path, entryId: id, name: manager.getSessionName() ?? null, backupPath },
      `named ${path}: ${JSON.stringify(value)} (backup: ${backupPath})`,
    );
    return 0;
  });
};

export const label: Action = async (ctx, [arg, typed, value]) => {
  if (typeof typed !== "string") throw new UsageError("missing <entry-id>");
  return withBackup(ctx, arg, (path, manager, backupPath) => {
    const target = entryId(
      manager.getEntries().map((e) => e.id),
      typed,
      { what: "entry", path },
    );
    const text = typeof value === "string" && value !== "" ? value : undefined;
    const id = manager.appendLabelChange(target, text);
    report(
      ctx,
      { file: path, entryId: id, targetId: target, label: text ?? null, backupPath },
      `${text === undefined ? "cleared the label of" : `labelled ${JSON.stringify(text)}:`} ${target} in ${path} (backup: ${backupPath})`,
    );
    return 0;
  });
};

export const fork: Action = async (ctx, [arg], options) => {
  const leaf = stringOption(options, "leaf", "--leaf");
  const to = stringOption(options, "to", "--to");
  if (leaf !== undefined && to !== undefined) throw new UsageError("give either --leaf or --to, not both");
  const source = await sessionPath(ctx, arg);
  // Checked read-only first: `SessionManager.open` would write a header into an empty file (as
  // pi does), and the source of a fork is never changed.
  let header: ReturnType<typeof scanHeaderSync>;
  try {
    header = scanHeaderSync(source);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
  if (header === null) {
    throw new CliError(`${source}: not a pi session (no session header); nothing written`, {
      hint: "Run `pi-session validate` on the file.",
    });
  }
  let path: string | undefined;
  try {
    if (to !== undefined) {
      const manager = SessionManager.forkFrom(
        source,
        resolve(ctx.cwd, to),
        ctx.sessionDir ? resolve(ctx.cwd, ctx.sessionDir) : undefined,
      );
      path = manager.getSessionFile();
    } else {
      const manager = SessionManager.open(source);
      const ids = manager.getEntries().map((e) => e.id);
      const target =
        leaf !== undefined ? entryId(ids, leaf, { what: "--leaf", path: source }) : manager.getLeafId();
      if (target === null || !manager.getEntry(target)) {
        throw new UsageError(
          `no entry ${String(target)} in ${source}`,
          "See the ids with `pi-session tree <session>`.",
        );
      }
      path = manager.createBranchedSession(target);
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
  // pi's createBranchedSession returns the new path even when it writes nothing (no user or
  // assistant message on the branch yet): what counts is whether the file is there.
  if (path === undefined || !existsSync(path)) {
    throw new CliError(
      "the branch has no user or assistant message yet, so pi would not write a file; nothing written",
    );
  }
  report(ctx, { source, path }, path);
  return 0;
};
