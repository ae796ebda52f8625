/**
 * Deep chains: a v3 session that is one long line of messages, built without fast-check so
 * that chains hundreds of thousands deep take well under a second (stack-depth tests).
 */
import type fc from "fast-check";
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { type GeneratedSession, idFor } from "./generated.js";
import { arbSalt } from "./placing.js";

/**
 * A v3 session that is one chain of `depth` message entries (user/assistant alternating),
 * built directly without fast-check so 200,000-deep chains take well under a second.
 */
export function deepChain(depth: number, seed = 1): GeneratedSession {
  const salt = seed >>> 0;
  const baseMs = 1_750_000_000_000 + (salt % 1_000_000) * 1000;
  const header = {
    type: "session",
    version: 3,
    id: `0190a000-0000-7000-8000-${idFor(0, salt)}0000`,
    timestamp: new Date(baseMs).toISOString(),
    cwd: "/home/user/deep",
  } as SessionHeader;
  const entries: AnyEntry[] = new Array(depth);
  let parent: string | null = null;
  // toISOString per entry dominates at 200k entries: format once per second instead.
  let second = -1;
  let prefix = "";
  for (let i = 0; i < depth; i++) {
    const id = idFor(i, salt);
    const ms = baseMs + i + 1;
    if (Math.floor(ms / 1000) !== second) {
      second = Math.floor(ms / 1000);
      prefix = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const iso = `${prefix}${String(ms % 1000).padStart(3, "0")}Z`;
    const message =
      i % 2 === 0
        ? { role: "user", content: `q${i}`, timestamp: ms }
        : {
            role: "assistant",
            content: [{ type: "text", text: `a${i}` }],
            provider: "anthropic",
            model: "claude-test",
            usage: {
              input: 0,
              output: 0,
              cacheRead: 0,
              cacheWrite: 0,
              totalTokens: 0,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: "stop",
            timestamp: ms,
          };
    entries[i] = {
      type: "message",
      id,
      parentId: parent,
      timestamp: iso,
      message,
    } as AnyEntry;
    parent = id;
  }
  const out: GeneratedSession = { version: 3, header, entries };
  if (parent !== null) out.leafId = parent;
  return out;
}

/** {@link deepChain} with a random seed, for use inside properties. */
export function arbDeepChain(depth: number): fc.Arbitrary<GeneratedSession> {
  return arbSalt.map((seed) => deepChain(depth, seed));
}
