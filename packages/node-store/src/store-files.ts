/**
 * The files of a session store with their identities: every `.jsonl` regular file directly in
 * a sessions root and in its per-project directories, statted once each (size, mtime, ctime,
 * inode: the key the listing cache and the session database check a file against), plus a
 * bounded read of a byte range. Use it to mirror a store (an index that must notice every
 * added, grown, rewritten and removed file) without reading unchanged files.
 */
import { type Dirent, closeSync, readSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type NonRegularKind, SessionFileNotRegularError } from "./errors.js";
import { StatProbe } from "./file-stat.js";
import { openRegularFileSync, unreadableError } from "./read.js";

/** One session file and its identity. */
export interface StoreFile {
  path: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface StoreFilesOptions {
  /** As the listing's `layout`: `auto` (default) = files in the root and in its subdirectories. */
  layout?: "auto" | "per-cwd" | "flat";
  /**
   * Called for each directory or `.jsonl` entry left out because it cannot be read (no
   * permission, a dangling link, not a regular file: `SessionFileNotRegularError`), as the
   * listing's `onUnreadable`. A missing directory is not reported.
   */
  onUnreadable?: (path: string, error: Error) => void;
}

type OnUnreadable = StoreFilesOptions["onUnreadable"];

function kindOf(e: Dirent): NonRegularKind {
  if (e.isDirectory()) return "a directory";
  if (e.isFIFO()) return "a FIFO";
  if (e.isSocket()) return "a socket";
  if (e.isCharacterDevice()) return "a character device";
  return e.isBlockDevice() ? "a block device" : "not a regular file";
}

const isJsonl = (name: string): boolean => name.endsWith(".jsonl");

/**
 * Whether a `.jsonl` entry is a regular file (a link or an unknown type is statted); reports it
 * if not, but for a directory in the root, which is a project directory (as in the listing).
 */
function isRegularFile(dir: string, e: Dirent, onUnreadable: OnUnreadable, inRoot: boolean): boolean {
  if (e.isFile()) return true;
  const path = join(dir, e.name);
  if (e.isDirectory() || e.isFIFO() || e.isSocket() || e.isCharacterDevice() || e.isBlockDevice()) {
    if (!(inRoot && e.isDirectory())) onUnreadable?.(path, new SessionFileNotRegularError(path, kindOf(e)));
    return false;
  }
  try {
    const st = statSync(path);
    if (st.isFile()) return true;
    onUnreadable?.(
      path,
      new SessionFileNotRegularError(path, st.isDirectory() ? "a directory" : "not a regular file"),
    );
    return false;
  } catch (error) {
    onUnreadable?.(path, error as Error);
    return false;
  }
}

function readDir(dir: string, onUnreadable: OnUnreadable): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") onUnreadable?.(dir, error as Error);
    return [];
  }
}

/**
 * The `.jsonl` regular files under `root` (see {@link StoreFilesOptions.layout}) with their
 * identities, in directory order. Files that vanish or cannot be statted meanwhile are left
 * out; FIFOs, sockets and devices named `.jsonl` are never sessions. A missing root gives `[]`.
 */
export function listStoreFiles(root: string, opts: StoreFilesOptions = {}): StoreFile[] {
  const layout = opts.layout ?? "auto";
  const { onUnreadable } = opts;
  const paths: string[] = [];
  const top = readDir(root, onUnreadable);
  if (layout !== "per-cwd") {
    for (const e of top)
      if (isJsonl(e.name) && isRegularFile(root, e, onUnreadable, true)) paths.push(join(root, e.name));
  }
  if (layout !== "flat") {
    for (const e of top) {
      if (!(e.isDirectory() || (e.isSymbolicLink() && !isJsonl(e.name)))) continue;
      const dir = join(root, e.name);
      for (const f of readDir(dir, onUnreadable))
        if (isJsonl(f.name) && isRegularFile(dir, f, onUnreadable, false)) paths.push(join(dir, f.name));
    }
  }
  const out: StoreFile[] = [];
  const probe = new StatProbe();
  for (const path of paths) {
    if (!probe.stat(path)) {
      // Gone, denied or replaced since the directory was read.
      const error = onUnreadable ? unreadableError(path) : undefined;
      if (error) onUnreadable?.(path, error);
      continue;
    }
    out.push({ path, size: probe.size, mtimeMs: probe.mtimeMs, ctimeMs: probe.ctimeMs, ino: probe.ino });
  }
  return out;
}

/**
 * Up to `length` bytes of a file from `offset` (fewer at its end); an empty array when the
 * file cannot be read. For probes (did the bytes before an offset change?) and single lines.
 */
export function readFileBytes(path: string, offset: number, length: number): Uint8Array {
  let fd: number;
  try {
    // Regular files only (a FIFO put at the path must not block the read).
    ({ fd } = openRegularFileSync(path));
  } catch {
    return new Uint8Array(0);
  }
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, length));
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, got);
  } catch {
    return new Uint8Array(0);
  } finally {
    closeSync(fd);
  }
}
