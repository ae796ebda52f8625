/**
 * The file a session path stands for, with symlinks followed. Writers resolve a path once and
 * work next to that file (temp, backup, sidecar, lock), so a write through a link changes the
 * target and leaves the link a link, and every name of one file shares one lock.
 */
import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorCode } from "../errors.js";

/**
 * The file a session path stands for: absolute, with every symlink followed (a dangling one
 * too, to where it points) and, for a file that does not exist yet, its directory resolved.
 * Writers work next to this file (temp, backup, sidecar, lock), so a rewrite through a link
 * replaces the target and leaves the link a link, and every way of naming one file shares
 * one lock. An error other than "missing" (a loop of links, no access) leaves the path as it
 * is (made absolute): the operation on it then reports that error.
 */
export function resolveSessionPath(path: string): string {
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    try {
      return realpathSync.native(p);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") return p;
    }
    let target: string;
    try {
      target = readlinkSync(p);
    } catch {
      // Not a link, or not there: a new file in a directory that may itself be a link.
      const dir = dirname(p);
      return dir === p ? p : join(resolveSessionPath(dir), basename(p));
    }
    p = resolve(dirname(p), target);
  }
  return p;
}
