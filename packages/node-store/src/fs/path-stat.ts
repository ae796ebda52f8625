/**
 * `statPath`: what is at a path (a regular file, a directory, or another kind), its size and
 * inode, or null when nothing is there. Use it to check a path argument before reading it, or
 * whether a session file is still the one a writer knows (same inode, not shorter).
 */
import { statSync } from "node:fs";
import { type NonRegularKind, errorCode } from "../errors.js";
import { nonRegularKind } from "./regular-files.js";

export interface PathStat {
  /** `file` for a regular file; otherwise what it is (`a directory`, `a FIFO`, ...). */
  kind: "file" | NonRegularKind;
  size: number;
  ino: number;
  mtimeMs: number;
}

/** What is at `path` (links followed); null when nothing is (ENOENT). Other errors are thrown. */
export function statPath(path: string): PathStat | null {
  try {
    const st = statSync(path);
    const kind = st.isFile() ? "file" : nonRegularKind(st);
    return { kind, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
}
