/**
 * Where the sessions live (`sessionsRoot`), apart from `locate.ts`'s finding of sessions so
 * that a command needing only the root (`search`) does not load the listing code.
 */
import { homedir } from "node:os";
import { expandTilde, resolveSessionsRoot } from "@pi-session/node-store";

export interface LocateOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  sessionDir: string | undefined;
}

/** `~` and `~/...` under `home` (default: the user's). */
export function expandHome(path: string, home: string = homedir()): string {
  return expandTilde(path, home);
}

/**
 * Where sessions live, by pi's own rule (node-store's `resolveSessionsRoot`): `--session-dir`,
 * `PI_CODING_AGENT_SESSION_DIR`, the `sessionDir` setting (`<cwd>/.pi/settings.json` over
 * `<agentDir>/settings.json`), then `<agentDir>/sessions` with `<agentDir>` =
 * `PI_CODING_AGENT_DIR` or `~/.pi/agent`; `~` and `file://` paths as pi reads them.
 */
export function sessionsRoot(options: LocateOptions): { root: string; custom: boolean } {
  const found = resolveSessionsRoot({ env: options.env, cwd: options.cwd, sessionDir: options.sessionDir });
  return { root: found.dir, custom: found.custom };
}
