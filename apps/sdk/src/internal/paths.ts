/**
 * Where pi keeps sessions: the agent dir (`PI_CODING_AGENT_DIR`, default `~/.pi/agent`), its
 * `sessions/` root and the per-cwd directory `--<cwd with / \ : as ->--`. Same names as pi.
 */
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Expands a leading `~` and makes the path absolute. */
export function resolvePath(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return resolve(path);
}

export function getAgentDir(): string {
  const fromEnv = process.env.PI_CODING_AGENT_DIR;
  return fromEnv ? resolvePath(fromEnv) : join(homedir(), ".pi", "agent");
}

export function getSessionsDir(): string {
  return join(getAgentDir(), "sessions");
}

export function getDefaultSessionDirPath(cwd: string, agentDir: string = getAgentDir()): string {
  const safe = `--${resolvePath(cwd)
    .replace(/^[/\\]/, "")
    .replace(/[/\\:]/g, "-")}--`;
  return join(resolvePath(agentDir), "sessions", safe);
}

/** The per-cwd session directory, created if missing (as pi does). */
export function getDefaultSessionDir(cwd: string, agentDir: string = getAgentDir()): string {
  const dir = getDefaultSessionDirPath(cwd, agentDir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}

/** `<ISO timestamp with : and . as ->_<id>.jsonl`. */
export function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
