/**
 * Where pi keeps its sessions, as pi 1.6.0 decides it: the agent dir (`PI_CODING_AGENT_DIR`,
 * else `~/.pi/agent`), the sessions root (the `--session-dir` flag, else
 * `PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir` setting of the project's
 * `<cwd>/.pi/settings.json` over `<agentDir>/settings.json`, else `<agentDir>/sessions`), and
 * each cwd's `--<encoded cwd>--` directory under the default root (a custom dir is flat).
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { readRegularFileSync } from "../fs/regular-files.js";
import { UnsafePathError, normalizePiPath, resolvePiPath, safeJoin } from "./pi-paths.js";

/** An environment map, e.g. `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

export const ENV_AGENT_DIR = "PI_CODING_AGENT_DIR";
export const ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR";

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

/** The per-cwd session directory under a sessions root (pi's `getDefaultSessionDirPath`). */
export function sessionDirForCwd(cwd: string, root: string = getDefaultSessionsRoot()): string {
  if (cwd.includes("\0")) throw new UnsafePathError(root, cwd);
  return safeJoin(resolvePiPath(root), encodeCwd(cwd));
}
