/**
 * Paths as pi reads them: a leading `~` expanded, a `file://` URL converted, made absolute
 * (pi's `resolvePath`), compared as pi compares them (`pathsEqual`), and joined so that no id,
 * cwd or timestamp can build a path outside its directory.
 */
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve, sep, win32 } from "node:path";
import { fileURLToPath } from "node:url";

/** Thrown when a computed path would leave the directory it belongs to. */
export class UnsafePathError extends Error {
  constructor(
    readonly dir: string,
    readonly component: string,
  ) {
    super(`Unsafe path component ${JSON.stringify(component)}: it would leave ${dir}`);
    this.name = "UnsafePathError";
  }
}

/** Expands a leading `~` (`~`, `~/x`, and `~\x` on Windows) to the home directory. */
export function expandTilde(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || (sep === "\\" && path.startsWith("~\\"))) return join(home, path.slice(2));
  return path;
}

/** pi's `normalizeWindowsShellPath`: `/c/x`, `/mnt/c/x`, `/cygdrive/c/x` → `C:\x` (used on Windows only). */
function windowsShellPath(path: string): string {
  if (!path.startsWith("/") || path.startsWith("//") || path.includes("\\")) return path;
  const match = /^\/(?:mnt\/|cygdrive\/)?([a-z])(?:\/(.*))?$/i.exec(path);
  if (!match) return path;
  return `${(match[1] as string).toUpperCase()}:\\${match[2]?.replaceAll("/", "\\") ?? ""}`;
}

/**
 * pi's `normalizePath` (1.6.0, `utils/paths`): on Windows a Git Bash/MSYS/WSL drive path is
 * converted, then a leading `~` is expanded ({@link expandTilde}), else a `file://` URL becomes
 * its path (`fileURLToPath`, which throws for a URL it rejects, as in pi). Nothing is resolved.
 */
export function normalizePiPath(input: string, home: string = homedir()): string {
  const path = process.platform === "win32" ? windowsShellPath(input) : input;
  const expanded = expandTilde(path, home);
  if (expanded !== path) return expanded;
  return /^file:\/\//.test(path) ? fileURLToPath(path) : path;
}

/**
 * pi's `resolvePath(input, baseDir)`: {@link normalizePiPath}, then made absolute against
 * `base` (itself normalized). Throws where pi's does (a `file://` URL `fileURLToPath` rejects).
 */
export function resolvePiPath(input: string, base: string = process.cwd(), home: string = homedir()): string {
  const path = normalizePiPath(input, home);
  return isAbsolute(path) ? resolve(path) : resolve(normalizePiPath(base, home), path);
}

/** pi's `pathsEqual`: the same resolved path (case-insensitively on Windows). Touches no file. */
export function pathsEqual(a: string, b: string): boolean {
  const api = process.platform === "win32" ? win32 : posix;
  const ka = api.resolve(a);
  const kb = api.resolve(b);
  return api === win32 ? ka.toLowerCase() === kb.toLowerCase() : ka === kb;
}

/**
 * pi's `sessionCwdMatches`, the header-cwd filter of a flat session dir: a non-empty header
 * `cwd` that {@link resolvePiPath resolves} to `resolvedCwd`. A cwd pi's `resolvePath` throws on
 * (a `file://` URL with a host, or an encoded `/`) matches nothing here; in pi it makes the whole
 * `list` fail.
 */
export function headerCwdMatches(cwd: string, resolvedCwd: string): boolean {
  if (cwd === "") return false;
  let resolved: string;
  try {
    resolved = resolvePiPath(cwd);
  } catch {
    return false;
  }
  return pathsEqual(resolved, resolvedCwd);
}

/** Joins one name under `dir`, refusing anything that is not a single plain component. */
export function safeJoin(dir: string, name: string): string {
  if (
    name === "" ||
    name === "." ||
    name === ".." ||
    name.includes("/") ||
    name.includes("\\") ||
    name.includes("\0")
  ) {
    throw new UnsafePathError(dir, name);
  }
  const full = join(dir, name);
  if (!isInside(dir, full)) throw new UnsafePathError(dir, name);
  return full;
}

/** True when `path` is `dir` itself or below it (lexically, after resolving both). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
