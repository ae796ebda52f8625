/**
 * The `sync` command's declaration, apart from the command table so that the binary's `sync`
 * path (`sync-main.ts`, one CommonJS file: decision 150) declares it without the other
 * commands. `commands/index.ts` lists it in its place.
 */
import type { CommandSpec } from "./index.js";

export const SYNC_COMMAND: CommandSpec = {
  name: "sync",
  declare: (cli) =>
    cli
      .command(
        "sync",
        "Send your sessions to a team's PostgreSQL database (incremental; sends text, usage, paths)",
      )
      .option("--to <url>", "The database: postgresql://user@host/db (default: PI_SESSION_DATABASE_URL)")
      .option("--as <name>", "This machine's source name in the database (default: user@host)")
      .option("--redact", "Replace secrets (keys, tokens, passwords) before anything is sent")
      .option("--exclude <dir>", "Keep this project (and those inside it) home; repeatable")
      .option("--watch", "Keep syncing as sessions are written, until Ctrl-C")
      .example("  $ pi-session sync --to postgresql://ada@db.internal/pi --redact")
      .example("  $ pi-session sync --watch --exclude ~/private --as ada@laptop"),
  details: `Sends every session under the sessions root that changed since the last sync (a stat per
file when nothing did): new and rewritten sessions whole, appends as their new entries; a
session removed here (or now excluded) is removed there. Each file is one transaction: an
interrupted sync leaves nothing half sent, and the next one finishes it. What is sent: each
entry's line and text, usage and cost, the session's cwd, path, name, models, tools and the
files its tools touched (docs/team.md). The password (URL, PGPASSWORD or ~/.pgpass) is never
printed. Exit codes: 0 synced, 1 failure, 2 usage error, 3 some files could not be read.`,
  load: async () => (await import("./sync.js")).action,
};
