/**
 * The local session database (`@pi-session/search`) as the commands that read it open it:
 * in the cache dir (in memory with `persistent: false`), brought up to date first (a progress
 * line on a terminal while a cold index is built), and what it could not read said on stderr
 * with a count. Use from `search`, `files`, `secrets` and `diff`.
 */
import { type SearchDatabase, openSearchDatabase } from "@pi-session/search";
import type { Context } from "./program.js";
import { sessionsRoot } from "./roots.js";
import { unreadable, warnSkipped } from "./unreadable.js";

export interface SyncedDatabase {
  db: SearchDatabase;
  /** The sessions root it mirrors. */
  root: string;
}

/** Opens the session database of the sessions root and brings it up to date. */
export async function openSyncedDatabase(
  ctx: Context,
  options: { persistent: boolean },
): Promise<SyncedDatabase> {
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const db = await openSearchDatabase({
    root,
    env: ctx.env,
    persistent: options.persistent,
    onWarning: (m) => ctx.io.warn(m),
  });
  try {
    const progress = ctx.io.progress("indexing");
    let synced: Awaited<ReturnType<typeof db.sync>>;
    try {
      synced = await db.sync({ onProgress: (p) => progress.update(p.done, p.total) });
    } finally {
      progress.end();
    }
    // What the index could not read is not answered from: said, with a count.
    warnSkipped(
      ctx.io,
      synced.unreadable.map(
        ({ path, error }) => unreadable(path, error) ?? { path, code: null, reason: error.message },
      ),
    );
  } catch (error) {
    db.close();
    throw error;
  }
  return { db, root };
}
