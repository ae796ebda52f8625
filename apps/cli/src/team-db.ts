/**
 * The team database as the CLI reaches it: `--to` / `--db <URL>`, else `PI_SESSION_DATABASE_URL`,
 * else pg's own `PG*` variables and `~/.pgpass`. `@pi-session/postgres` (and `pg` inside it) is
 * imported here, on demand, so only a command that names a database loads that chunk (the
 * program and the local commands stay as small as they were).
 *
 * The URL's password is never shown: what the CLI prints is the package's `location` (the URL
 * without it), and a failure to connect is reported with pg's message as the package scrubbed
 * it, with a last pass here over the message for the password as typed.
 */
import type { PostgresDatabase } from "@pi-session/postgres";
import { CliError, UsageError } from "./errors.js";
import type { Context } from "./program.js";

/**
 * The option's value (`--db`, `--to`): a URL; a bare flag (`--db`) means the environment's
 * (`PI_SESSION_DATABASE_URL`, else pg's `PG*` variables); undefined then.
 */
export function databaseUrl(value: unknown, flag: string): string | undefined {
  if (value === undefined || value === true) return undefined;
  if (value === "" || Array.isArray(value))
    throw new UsageError(`${flag} takes one PostgreSQL URL (postgresql://user@host/db)`);
  return String(value);
}

/** Whether the environment names a database without a URL (for a bare `--db`/ no `--to`). */
export function environmentNamesDatabase(env: Context["env"]): boolean {
  return Boolean(env.PI_SESSION_DATABASE_URL || env.PGHOST || env.PGDATABASE || env.PGSERVICE);
}

/** Every value of a repeatable option (`--source a --source b`, or `--source a,b`). */
export function listOption(options: Record<string, unknown>, name: string, flag: string): string[] {
  const raw = options[name];
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const v of values) {
    if (v === true || v === "") throw new UsageError(`${flag} needs a value`);
    for (const part of String(v).split(",")) if (part.trim() !== "") out.push(part.trim());
  }
  return out;
}

/** Whether this command was asked to read the team database (`--db` given). */
export function wantsDatabase(options: Record<string, unknown>): boolean {
  return options.db !== undefined;
}

/** Passwords as they may appear in a message: the URL's, raw and decoded. */
function secretsOf(url: string | undefined, env: Context["env"]): string[] {
  const out = new Set<string>();
  if (env.PGPASSWORD) out.add(env.PGPASSWORD);
  if (url !== undefined) {
    try {
      const u = new URL(url);
      if (u.password) {
        out.add(u.password);
        try {
          out.add(decodeURIComponent(u.password));
        } catch {}
      }
      for (const [key, value] of u.searchParams) if (/password/i.test(key) && value) out.add(value);
    } catch {
      for (const m of url.matchAll(/password\s*=\s*('([^']*)'|\S+)/gi)) out.add(m[2] ?? m[1] ?? "");
    }
  }
  out.delete("");
  return [...out];
}

/** `text` with every secret of `url` replaced by `***`. */
export function scrubbed(text: string, url: string | undefined, env: Context["env"]): string {
  let out = text;
  for (const s of secretsOf(url, env)) out = out.split(s).join("***");
  return out;
}

/**
 * Opens the team database (`readOnly` for the readers: they never create or migrate the
 * schema, and work with a role that may only SELECT). A failure is a {@link CliError} whose
 * message names the database without its password.
 */
export async function openTeamDatabase(
  ctx: Context,
  url: string | undefined,
  opts: { readOnly: boolean },
): Promise<PostgresDatabase> {
  const chosen = url ?? ctx.env.PI_SESSION_DATABASE_URL;
  const postgres = await import("@pi-session/postgres");
  const where = chosen === undefined ? "the database of the PG* environment" : postgres.redactUrl(chosen);
  try {
    return await postgres.openPostgresDatabase({
      ...(chosen !== undefined ? { url: chosen } : {}),
      env: ctx.env,
      readOnly: opts.readOnly,
      onWarning: (m) => ctx.io.warn(scrubbed(m, chosen, ctx.env)),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    const hint =
      code === "28P01" || code === "28000"
        ? "Check the user and password (the URL, PGPASSWORD or ~/.pgpass)."
        : error instanceof postgres.PostgresSchemaMissingError ||
            error instanceof postgres.OlderPostgresSchemaError
          ? "Run `pi-session sync --to <URL>` once with a role that may create tables."
          : error instanceof postgres.NewerPostgresSchemaError
            ? "A newer pi-session made this database: upgrade pi-session."
            : undefined;
    throw new CliError(`${where}: ${scrubbed(message, chosen, ctx.env)}`, hint ? { hint } : {});
  }
}

/** Runs `fn` and turns a database failure into a {@link CliError} without the password. */
export async function guarded<T>(ctx: Context, url: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CliError || !(error instanceof Error)) throw error;
    if (error.name !== "PostgresDatabaseError" && (error as { code?: unknown }).code === undefined)
      throw error;
    throw new CliError(scrubbed(error.message, url ?? ctx.env.PI_SESSION_DATABASE_URL, ctx.env));
  }
}
