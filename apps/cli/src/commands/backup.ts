/**
 * The backup the explicit write commands (`name`, `label`) take before they open a session:
 * its bytes copied to `<file>.bak-<time>`, so the backup holds the previous bytes whatever the
 * SDK then writes (an appended line, or for a v1/v2 file the migrated v3 form, for which the
 * SDK keeps its own `<file>.v1.bak` too). A failed command removes its backup. Also their
 * one-line report.
 */
import { closeSync, fchmodSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { openRegularFileSync } from "@pi-session/node-store";
import { SessionManager } from "@pi-session/sdk";
import { CliError } from "../errors.js";
import type { Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { sessionPath } from "./common.js";

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
export async function withBackup<T>(
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
export function report(ctx: Context, data: Record<string, unknown>, text: string): void {
  if (ctx.json) ctx.io.printJson(data);
  else ctx.io.line(oneLineField(text));
}
