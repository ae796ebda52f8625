/**
 * Session discovery as pi 1.6.0 does it: the most recent file by mtime with a valid header,
 * and `SessionInfo` built by streaming each file (bounded concurrency, progress, abort).
 */
import { createReadStream, existsSync, readdirSync, type Stats, statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import type { SessionInfo, SessionListProgress } from "../types.js";
import { readSessionHeaderOrNull } from "./file-io.js";
import { resolvePath } from "./paths.js";

export function cwdMatches(cwd: unknown, resolvedCwd: string): boolean {
  return typeof cwd === "string" && cwd !== "" && resolvePath(cwd) === resolvedCwd;
}

/** Newest `.jsonl` (by mtime) with a valid header, optionally of one cwd; `null` if none. */
export function findMostRecentSession(sessionDir: string, cwd?: string): string | null {
  const dir = resolvePath(sessionDir);
  const resolvedCwd = cwd ? resolvePath(cwd) : undefined;
  try {
    const files = readdirSync(dir)
      .filter((file) => file.endsWith(".jsonl"))
      .map((file) => join(dir, file))
      .map((path) => ({ path, mtime: statSync(path).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { path } of files) {
      const header = readSessionHeaderOrNull(path);
      if (header && (!resolvedCwd || cwdMatches(header.cwd, resolvedCwd))) return path;
    }
    return null;
  } catch {
    return null;
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => (block as { type?: unknown })?.type === "text")
    .map((block) => (block as { text: string }).text)
    .join(" ");
}

function parseOrNull(line: string): Record<string, unknown> | null {
  if (!line.trim()) return null;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function buildSessionInfo(
  path: string,
  signal?: AbortSignal,
  known?: Stats,
): Promise<SessionInfo | null> {
  try {
    const stats = known ?? (await stat(path));
    let header: Record<string, unknown> | null = null;
    let messageCount = 0;
    let firstMessage = "";
    const texts: string[] = [];
    let name: string | undefined;
    let lastActivity: number | undefined;
    const lines = createInterface({
      input: createReadStream(path, { encoding: "utf8", signal }),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      const entry = parseOrNull(line);
      if (!entry) continue;
      if (!header) {
        if (entry.type !== "session") return null;
        header = entry;
        continue;
      }
      if (entry.type === "session_info") name = (entry.name as string | undefined)?.trim() || undefined;
      if (entry.type !== "message") continue;
      messageCount++;
      const message = entry.message as Record<string, unknown> | undefined;
      if (!message || typeof message.role !== "string" || !("content" in message)) continue;
      if (message.role !== "user" && message.role !== "assistant") continue;
      const time =
        typeof message.timestamp === "number"
          ? message.timestamp
          : new Date(entry.timestamp as string).getTime();
      if (!Number.isNaN(time)) lastActivity = Math.max(lastActivity ?? 0, time);
      const text = textOf(message.content);
      if (!text) continue;
      texts.push(text);
      if (!firstMessage && message.role === "user") firstMessage = text;
    }
    if (!header) return null;
    const headerTime =
      typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : Number.NaN;
    const modified =
      typeof lastActivity === "number" && lastActivity > 0
        ? new Date(lastActivity)
        : !Number.isNaN(headerTime)
          ? new Date(headerTime)
          : stats.mtime;
    return {
      path,
      id: header.id as string,
      cwd: typeof header.cwd === "string" ? header.cwd : "",
      name,
      parentSessionPath: header.parentSession as string | undefined,
      created: new Date(header.timestamp as string),
      modified,
      messageCount,
      firstMessage: firstMessage || "(no messages)",
      allMessagesText: texts.join(" "),
    };
  } catch {
    signal?.throwIfAborted();
    return null;
  }
}

async function mapLimited<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function sortSessionInfos(sessions: SessionInfo[]): SessionInfo[] {
  return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

interface Candidate {
  path: string;
  stats?: Stats;
}

function infosOf(
  files: Candidate[],
  onLoaded: (info: SessionInfo | null, index: number) => void,
  signal?: AbortSignal,
): Promise<(SessionInfo | null)[]> {
  return mapLimited(
    files,
    10,
    async (file, index) => {
      const info = await buildSessionInfo(file.path, signal, file.stats);
      onLoaded(info, index);
      return info;
    },
    signal,
  );
}

export async function listSessionsFromDir(
  dir: string,
  onProgress?: SessionListProgress,
  signal?: AbortSignal,
): Promise<SessionInfo[]> {
  signal?.throwIfAborted();
  if (!existsSync(dir)) return [];
  try {
    const files = (await readdir(dir))
      .filter((file) => file.endsWith(".jsonl"))
      .sort((a, b) => b.localeCompare(a))
      .map((file) => ({ path: join(dir, file) }));
    const partial: SessionInfo[] = [];
    let loaded = 0;
    const results = await infosOf(
      files,
      (info) => {
        loaded++;
        if (info) partial.push(info);
        const publish = loaded === 1 || loaded % 10 === 0 || loaded === files.length;
        onProgress?.(loaded, files.length, publish ? sortSessionInfos([...partial]) : undefined);
      },
      signal,
    );
    return results.filter((info): info is SessionInfo => info !== null);
  } catch {
    signal?.throwIfAborted();
    return [];
  }
}

/** Every session under `<agentDir>/sessions/*` (symlinked directories included). */
export async function listAllSessions(
  sessionsDir: string,
  onProgress?: SessionListProgress,
  signal?: AbortSignal,
): Promise<SessionInfo[]> {
  try {
    if (!existsSync(sessionsDir)) return [];
    const dirs = (await readdir(sessionsDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => join(sessionsDir, entry.name));
    const perDir = await mapLimited(
      dirs,
      64,
      async (dir) => {
        try {
          return (await readdir(dir))
            .filter((file) => file.endsWith(".jsonl"))
            .map((file) => join(dir, file));
        } catch {
          return [];
        }
      },
      signal,
    );
    const candidates = await mapLimited(
      perDir.flat(),
      64,
      async (path): Promise<Candidate> => {
        try {
          return { path, stats: await stat(path) };
        } catch {
          return { path };
        }
      },
      signal,
    );
    candidates.sort(
      (a, b) =>
        (b.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) - (a.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) ||
        basename(b.path).localeCompare(basename(a.path)),
    );
    let loaded = 0;
    let firstLoaded = false;
    const partial: SessionInfo[] = [];
    const results = await infosOf(
      candidates,
      (info, index) => {
        loaded++;
        if (index === 0) firstLoaded = true;
        if (info) partial.push(info);
        const publish = firstLoaded && (index === 0 || loaded % 100 === 0 || loaded === candidates.length);
        onProgress?.(loaded, candidates.length, publish ? sortSessionInfos([...partial]) : undefined);
      },
      signal,
    );
    return sortSessionInfos(results.filter((info): info is SessionInfo => info !== null));
  } catch {
    signal?.throwIfAborted();
    return [];
  }
}
