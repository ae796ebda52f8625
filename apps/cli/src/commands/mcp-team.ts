/**
 * The agent tools' store over a team's PostgreSQL database (`mcp --db`): its sessions (some
 * sources, or all), its search and stats, and a session's lines read back as a file's reader
 * takes them in. Read-only; every message it passes on is scrubbed of the database's password.
 */
import type { AgentStore, StoreSession } from "@pi-session/agent-tools";
import { SessionLineDecoder, utf8 } from "@pi-session/format";
import { keepLinesPiReads, readLinesAsPi } from "@pi-session/node-store";
import type { PostgresDatabase } from "@pi-session/postgres";
import { sessionFromRecords } from "@pi-session/render";
import type { Context } from "../program.js";
import { credentialMask } from "../team-db.js";

export function teamStore(
  ctx: Context,
  db: PostgresDatabase,
  opts: { url: string | undefined; sources: string[] },
): AgentStore {
  const sources = opts.sources.length > 0 ? { sources: opts.sources } : {};
  // The database's URLs and passwords (the option's, PI_SESSION_DATABASE_URL, PGPASSWORD), masked
  // as the program masks its stderr: a tool error goes to the client, not through the Io.
  const mask = credentialMask(opts.url ? [opts.url] : [], ctx.env) ?? ((text: string) => text);
  /** `fn`'s failure, its message scrubbed of the password. */
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw new Error(mask(error instanceof Error ? error.message : String(error)));
    }
  };
  return {
    where: `${db.location}${opts.sources.length > 0 ? ` (${opts.sources.join(", ")})` : ""}`,
    sessions: () =>
      guard(async () =>
        (await db.sessions(sources)).map(
          (s): StoreSession => ({
            path: s.path,
            meta: s.meta,
            source: s.source,
            // Other machines' paths: a fork's header names its parent; subfolder layouts are not read here.
            ...(s.meta.parentPath ? { parent: { path: s.meta.parentPath, kind: "fork" as const } } : {}),
          }),
        ),
      ),
    details: async (session) => session.meta,
    search: (query, options) => guard(() => db.search(query, { ...options, ...sources })),
    stats: (query) => guard(() => db.stats({ ...query, ...sources })),
    load: (session) =>
      guard(async () => {
        const found = await db.sessionLines({ source: session.source ?? "", path: session.path });
        if (!found)
          throw new Error(`session ${session.path} of ${session.source} is no longer in the database`);
        const decoder = new SessionLineDecoder({ keepRecord: keepLinesPiReads(), maxDiagnostics: 20 });
        const records = [];
        for (const line of found.lines) for (const r of decoder.push(utf8(`${line}\n`))) records.push(r);
        for (const r of decoder.end()) records.push(r);
        return sessionFromRecords(readLinesAsPi(records).records, decoder.diagnostics);
      }),
    close: () => db.close(),
  };
}
