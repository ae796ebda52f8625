/**
 * Moving a file to the desktop trash: the freedesktop.org Trash (`$XDG_DATA_HOME/Trash`, with a
 * `.trashinfo` per file) or `~/.Trash` on macOS, only where that directory exists; else unlink.
 * Across filesystems a move is a copy and an unlink, all or nothing.
 */
import * as nodeFs from "node:fs";
import { homedir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { errorCode } from "../errors.js";
import type { RemoveFs, RemoveSessionOptions } from "./remove.js";

/** The lstat of `path` (a dangling link too), or undefined when nothing has that name. */
export function lstatOf(fs: RemoveFs, path: string): nodeFs.Stats | undefined {
  try {
    return fs.lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Removes what a failed move left at `path`; the move's error is the one to report. */
function unlinkQuietly(fs: RemoveFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Not there (the copy never created it), or cannot be removed: nothing more to do.
  }
}

function isDir(fs: RemoveFs, path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Local time as `YYYY-MM-DDThh:mm:ss`, the freedesktop DeletionDate format. */
function deletionDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Path percent-encoded as the spec asks (RFC 2396 escaping, `/` kept). */
function encodeTrashPath(path: string): string {
  return path
    .split("/")
    .map((part) => encodeURIComponent(part))
    .join("/");
}

/**
 * Moves across filesystems by copy + unlink (the spec allows copying); a link is copied as a
 * link. All or nothing: when the copy or the unlink fails, the copy is removed again (a
 * partial file, or a whole one the source is still next to, would otherwise stay in the
 * trash without its `.trashinfo`).
 */
function move(fs: RemoveFs, from: string, to: string, isLink: boolean): void {
  try {
    fs.renameSync(from, to);
    return;
  } catch (error) {
    if (errorCode(error) !== "EXDEV") throw error;
  }
  try {
    if (isLink) fs.symlinkSync(fs.readlinkSync(from), to);
    else fs.copyFileSync(from, to, nodeFs.constants.COPYFILE_EXCL);
  } catch (error) {
    // EEXIST: `to` is someone else's (the copy is exclusive), left alone. Otherwise the copy
    // created it, or did not get that far.
    if (errorCode(error) !== "EEXIST") unlinkQuietly(fs, to);
    throw error;
  }
  try {
    fs.unlinkSync(from);
  } catch (error) {
    unlinkQuietly(fs, to);
    throw error;
  }
}

function toFreedesktopTrash(
  fs: RemoveFs,
  path: string,
  isLink: boolean,
  trashDir: string,
  now: Date,
): string {
  const filesDir = join(trashDir, "files");
  const infoDir = join(trashDir, "info");
  fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(infoDir, { recursive: true, mode: 0o700 });
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${stem}.${i}${ext}`;
    const infoPath = join(infoDir, `${candidate}.trashinfo`);
    let fd: number;
    try {
      // Creating the .trashinfo exclusively reserves the name (the spec's protocol).
      fd = fs.openSync(infoPath, "wx", 0o600);
    } catch (error) {
      if (errorCode(error) === "EEXIST") continue;
      throw error;
    }
    try {
      fs.writeSync(
        fd,
        `[Trash Info]\nPath=${encodeTrashPath(resolve(path))}\nDeletionDate=${deletionDate(now)}\n`,
      );
    } finally {
      fs.closeSync(fd);
    }
    const target = join(filesDir, candidate);
    if (lstatOf(fs, target) !== undefined) {
      fs.unlinkSync(infoPath);
      continue;
    }
    try {
      move(fs, path, target, isLink);
    } catch (error) {
      fs.unlinkSync(infoPath);
      throw error;
    }
    return target;
  }
}

function toMacTrash(fs: RemoveFs, path: string, isLink: boolean, trashDir: string): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const target = join(trashDir, i === 1 ? name : `${stem} ${i}${ext}`);
    if (lstatOf(fs, target) !== undefined) continue;
    move(fs, path, target, isLink);
    return target;
  }
}

/** How files are removed: the trash (which one) or unlink. Returns where a file went. */
export function removerFor(
  fs: RemoveFs,
  opts: RemoveSessionOptions,
): { method: "trash" | "unlink"; run: (path: string, isLink: boolean) => string | undefined } {
  if (opts.trash !== false) {
    const env = opts.env ?? process.env;
    const home = opts.home ?? homedir();
    const platform = opts.platform ?? process.platform;
    const now = (opts.now ?? (() => new Date()))();
    if (platform === "darwin") {
      const trashDir = join(home, ".Trash");
      if (isDir(fs, trashDir))
        return { method: "trash", run: (path, isLink) => toMacTrash(fs, path, isLink, trashDir) };
    } else if (platform !== "win32") {
      const dataHome = env.XDG_DATA_HOME || join(home, ".local", "share");
      const trashDir = join(dataHome, "Trash");
      if (isDir(fs, trashDir))
        return {
          method: "trash",
          run: (path, isLink) => toFreedesktopTrash(fs, path, isLink, trashDir, now),
        };
    }
  }
  return {
    method: "unlink",
    run: (path) => {
      fs.unlinkSync(path);
      return undefined;
    },
  };
}
