/**
 * The files of a session store with their identities: every `.jsonl` regular file directly in
 * a sessions root and in its per-project directories, statted once each (size, mtime, ctime,
 * inode: the key the listing cache and the session database check a file against), plus a
 * bounded read of a byte range. Use it to mirror a store (an index that must notice every
 * added, grown, rewritten and removed file) without reading unchanged files.
 */
import { type Dirent, closeSync, readdirSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { StatProbe } from "../fs/file-stat.js";
import { readFully, runReaderSync } from "../fs/positional-reads.js";
import { openRegularFileSync, unreadableError } from "../fs/regular-files.js";

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
   * permission, a dangling link), as the listing's `onUnreadable`. Not for what is no session
   * (a FIFO, socket, device or directory named `.jsonl`), nor for a missing directory.
   */
  onUnreadable?: (path: string, error: Error) => void;
  /**
   * Called for each `.jsonl` entry that is no regular file (a directory, FIFO, socket or
   * device named like a session): left out and never opened, so a caller can say so.
   */
  onNotRegular?: (path: string) => void;
}

type OnUnreadable = StoreFilesOptions["onUnreadable"];

const isJsonl = (name: string): boolean => name.endsWith(".jsonl");

/** Whether a `.jsonl` entry is a regular file (a link or an unknown type is statted; one that fails is reported). */
function isRegularFile(dir: string, e: Dirent, opts: StoreFilesOptions): boolean {
  const { onUnreadable, onNotRegular } = opts;
  if (e.isFile()) return true;
  const path = join(dir, e.name);
  if (e.isDirectory() || e.isFIFO() || e.isSocket() || e.isCharacterDevice() || e.isBlockDevice()) {
    onNotRegular?.(path);
    return false;
  }
  try {
    const regular = statSync(path).isFile();
    if (!regular) onNotRegular?.(path);
    return regular;
  } catch (error) {
    onUnreadable?.(path, error as Error);
    return false;
  }
}

function readNames(dir: string, onUnreadable: OnUnreadable): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") onUnreadable?.(dir, error as Error);
    return [];
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
    for (const e of top) if (isJsonl(e.name) && isRegularFile(root, e, opts)) paths.push(join(root, e.name));
  }
  if (layout !== "flat") {
    for (const e of top) {
      if (!(e.isDirectory() || (e.isSymbolicLink() && !isJsonl(e.name)))) continue;
      const dir = join(root, e.name);
      // Names only, each path as `join` would make it: the stat below tells a regular file from
      // anything else (no entry types, no normalizing: a warm check does this for every file).
      for (const name of readNames(dir, onUnreadable)) if (isJsonl(name)) paths.push(dir + sep + name);
    }
  }
  const out: StoreFile[] = [];
  const probe = new StatProbe();
  for (const path of paths) {
    if (!probe.stat(path)) {
      // Gone, denied, replaced since the directory was read (reported as unreadable), or no
      // regular file (a FIFO, socket, device or directory: passed by, told to onNotRegular).
      const error = onUnreadable || opts.onNotRegular ? unreadableError(path) : undefined;
      if (error) onUnreadable?.(path, error);
      else opts.onNotRegular?.(path);
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
    const got = runReaderSync(readFully(buf, length, offset), fd);
    // Nothing read: a fresh empty array, not a view of an empty buffer (node:sqlite binds
    // such a view as NULL, not as an empty blob).
    return got === 0 ? new Uint8Array(0) : new Uint8Array(buf.buffer, buf.byteOffset, got);
  } catch {
    return new Uint8Array(0);
  } finally {
    closeSync(fd);
  }
}
