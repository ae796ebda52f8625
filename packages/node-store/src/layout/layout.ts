/**
 * Layout: where pi keeps its sessions and how files and directories are named.
 *
 * Mirrors pi 1.6.0 exactly (`config.ts`, `main.ts`, `settings-manager.ts`,
 * `session-manager.ts`, `utils/paths.ts`): the agent dir comes from `PI_CODING_AGENT_DIR`
 * (else `~/.pi/agent`), sessions live in the `--session-dir` flag's dir, else
 * `PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir` setting (the project's
 * `<cwd>/.pi/settings.json` over the global `<agentDir>/settings.json`), else
 * `<agentDir>/sessions`; each cwd gets a `--<encoded cwd>--` directory (only under the default
 * root: a custom session dir is flat), and each file is `<timestamp with : and . as ->_<id>.jsonl`.
 * Paths are resolved as pi's `resolvePath` does (`~` expanded, a `file://` URL converted).
 * Every function that builds a path checks that the result stays inside its directory.
 */
import { homedir } from "node:os";
import { basename, isAbsolute, join, posix, relative, resolve, sep, win32 } from "node:path";
import { fileURLToPath } from "node:url";
import { readRegularFileSync } from "../read/read.js";

/** An environment map, e.g. `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

export const ENV_AGENT_DIR = "PI_CODING_AGENT_DIR";
export const ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR";

/** pi's session id rule (`assertValidSessionId`, 1.6.0). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** pi's message, reproduced literally. */
export const INVALID_SESSION_ID_MESSAGE =
  "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

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

/** The agent dir: `PI_CODING_AGENT_DIR` (`~` and a `file://` URL handled as pi, {@link normalizePiPath}) or `~/.pi/agent`. */
export function getAgentDir(env: Env = process.env, home: string = homedir()): string {
  const fromEnv = env[ENV_AGENT_DIR];
  if (fromEnv) return normalizePiPath(fromEnv, home);
  return join(home, ".pi", "agent");
}

export interface SessionsRootOptions {
  env?: Env;
  /** Defaults to {@link getAgentDir}(env). */
  agentDir?: string;
  /**
   * The working directory (default: the process cwd): its `.pi/settings.json` holds the
   * project settings, and relative paths are resolved against it (pi resolves them against the
   * process cwd, which is its working directory).
   */
  cwd?: string;
  home?: string;
  /** pi's `--session-dir` flag: when non-empty it wins over everything else. */
  sessionDir?: string;
}

/** Where the sessions root came from. */
export interface SessionsRoot {
  /** Absolute directory. */
  dir: string;
  source: "flag" | "env" | "settings" | "default";
  /**
   * True when the directory is a custom (flat) session dir: pi then keeps every session
   * directly in it (no per-cwd subdirectory) and filters lists by the header cwd.
   */
  custom: boolean;
}

/**
 * The `sessionDir` key of one settings file as pi's `SettingsManager` loads it: `undefined`
 * when the file is missing, unreadable or empty, is not JSON (after a leading BOM), or is not an
 * object (pi's settings migration throws on `null` and other values, and the file counts as
 * `{}`), or has no such key; else the key's value, whatever its type.
 */
function settingsFileSessionDir(path: string): { value: unknown } | undefined {
  let text: string;
  try {
    // A FIFO or a device at its path is not read (it could block for ever): unreadable.
    text = readRegularFileSync(path, { maxBytes: Number.MAX_SAFE_INTEGER }).toString("utf8");
  } catch {
    return undefined;
  }
  if (text === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || !Object.hasOwn(parsed, "sessionDir")) return undefined;
  return { value: (parsed as { sessionDir: unknown }).sessionDir };
}

/**
 * The `sessionDir` setting as pi 1.6.0 reads it (`SettingsManager.create(cwd, agentDir)
 * .getSessionDir()`), unresolved: from `<agentDir>/settings.json`, and with `cwd`, from the
 * project's `<cwd>/.pi/settings.json` over it (pi deep-merges the two; a project key wins
 * whatever its value, so a project `"sessionDir": ""` or `null` hides the global one).
 * `undefined` when the effective value is not a non-empty string (pi then uses its default
 * dir; a truthy value that is not a string makes pi fail at startup, here it is ignored).
 * Without `cwd` only the global file is read.
 */
export function readSessionDirSetting(
  agentDir: string,
  cwd?: string,
  home: string = homedir(),
): string | undefined {
  let setting = settingsFileSessionDir(join(resolvePiPath(agentDir, process.cwd(), home), "settings.json"));
  if (cwd !== undefined) {
    const project = settingsFileSessionDir(
      join(resolvePiPath(cwd, process.cwd(), home), ".pi", "settings.json"),
    );
    if (project !== undefined) setting = project;
  }
  const value = setting?.value;
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Resolves the sessions root as pi 1.6.0's `main` does: the `--session-dir` flag
 * (`opts.sessionDir`), then `PI_CODING_AGENT_SESSION_DIR`, then the `sessionDir` setting
 * (project over global, {@link readSessionDirSetting}), then `<agentDir>/sessions`. Each is
 * resolved as pi's `resolvePath` ({@link resolvePiPath}: `~` expanded, a `file://` URL
 * converted, a relative path resolved against `cwd`, default the process cwd).
 */
export function resolveSessionsRoot(opts: SessionsRootOptions = {}): SessionsRoot {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const base = opts.cwd ?? process.cwd();
  const agentDir = resolvePiPath(opts.agentDir ?? getAgentDir(env, home), base, home);
  if (opts.sessionDir) {
    return { dir: resolvePiPath(opts.sessionDir, base, home), source: "flag", custom: true };
  }
  const fromEnv = env[ENV_SESSION_DIR];
  if (fromEnv) return { dir: resolvePiPath(fromEnv, base, home), source: "env", custom: true };
  const fromSettings = readSessionDirSetting(agentDir, resolvePiPath(base, process.cwd(), home), home);
  if (fromSettings !== undefined) {
    return { dir: resolvePiPath(fromSettings, base, home), source: "settings", custom: true };
  }
  return { dir: join(agentDir, "sessions"), source: "default", custom: false };
}

/** The sessions root directory (see {@link resolveSessionsRoot}). */
export function getSessionsRoot(opts: SessionsRootOptions = {}): string {
  return resolveSessionsRoot(opts).dir;
}

/** `<agentDir>/sessions`, ignoring overrides: the root of pi's per-cwd directories. */
export function getDefaultSessionsRoot(agentDir: string = getAgentDir()): string {
  return join(resolvePiPath(agentDir), "sessions");
}

/**
 * pi's directory name for a cwd: the cwd is resolved as pi's `resolvePath` does
 * ({@link resolvePiPath}: `~` expanded, a `file://` URL converted, made absolute), a leading `/`
 * or `\` is dropped, every `/`, `\` and `:` becomes `-`, and the result is wrapped in `--`.
 * Lossy: `/a/b` and `/a-b` collide, which is why lists filter by the header cwd.
 */
export function encodeCwd(cwd: string): string {
  const resolved = resolvePiPath(cwd);
  return `--${resolved.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
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

/** The per-cwd session directory under a sessions root (pi's `getDefaultSessionDirPath`). */
export function sessionDirForCwd(cwd: string, root: string = getDefaultSessionsRoot()): string {
  if (cwd.includes("\0")) throw new UnsafePathError(root, cwd);
  return safeJoin(resolvePiPath(root), encodeCwd(cwd));
}

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID_PATTERN.test(id);
}

/** Throws pi's error when `id` is not a valid session id. */
export function assertValidSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) throw new Error(INVALID_SESSION_ID_MESSAGE);
}

/**
 * The file name pi gives a session: `<isoTimestamp with : and . replaced by ->_<id>.jsonl`.
 * Throws for an invalid id, or a timestamp that contains a path separator, NUL or `_`.
 */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  assertValidSessionId(sessionId);
  if (/[/\\\0_]/.test(isoTimestamp) || isoTimestamp === "") {
    throw new UnsafePathError(".", isoTimestamp);
  }
  return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** Full path of a new session file in `dir`. */
export function sessionFilePath(dir: string, isoTimestamp: string, sessionId: string): string {
  return safeJoin(dir, sessionFileName(isoTimestamp, sessionId));
}

export interface ParsedSessionFileName {
  /** The timestamp part as it appears in the name, e.g. `2025-01-01T00-00-00-000Z`. */
  fileTimestamp: string;
  /** The ISO timestamp it encodes (`2025-01-01T00:00:00.000Z`), when it has pi's shape. */
  isoTimestamp?: string;
  sessionId: string;
}

/**
 * Splits a pi session file name (a base name or a path) into timestamp and id; null when the
 * name is not `<timestamp>_<valid id>.jsonl`.
 */
export function parseSessionFileName(name: string): ParsedSessionFileName | null {
  const base = basename(name);
  if (!base.endsWith(".jsonl")) return null;
  const stem = base.slice(0, -".jsonl".length);
  const cut = stem.indexOf("_");
  if (cut <= 0) return null;
  const fileTimestamp = stem.slice(0, cut);
  const sessionId = stem.slice(cut + 1);
  if (!isValidSessionId(sessionId)) return null;
  const m = /^(\d{4,}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(fileTimestamp);
  const result: ParsedSessionFileName = { fileTimestamp, sessionId };
  if (m) result.isoTimestamp = `${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`;
  return result;
}
