/**
 * The team database as the CLI reaches it: `--to` / `--db <URL>`, else `PI_SESSION_DATABASE_URL`,
 * else pg's own `PG*` variables and `~/.pgpass`. `@pi-session/postgres` (and `pg` inside it) is
 * imported here, on demand, so only a command that names a database loads that chunk (the
 * program and the local commands stay as small as they were).
 *
 * The URL's password is never shown: what the CLI prints is the URL without it (the package's
 * `redactUrl`, also for a URL that does not parse, which is refused before pg sees it), a
 * failure to connect is reported with pg's message as the package scrubbed it, and
 * {@link credentialMask} is a last pass over everything the run writes on stderr.
 */
import type { PostgresDatabase } from "@pi-session/postgres";
import { postgresUrlProblem, redactUrl, urlSecrets } from "@pi-session/postgres/url";
import { CliError, UsageError } from "./errors.js";
import type { Context } from "./program.js";

const URL_HINT =
  "A URL looks like postgresql://user:password@host:5432/db (percent-encode @ : / ? # in the password).";

/** `url` (named `where`: `--to`, `PI_SESSION_DATABASE_URL`) when pg can read it, else a usage error. */
function readableUrl(url: string, where: string): string {
  const problem = postgresUrlProblem(url);
  if (problem !== undefined)
    throw new UsageError(`${where}: not a PostgreSQL URL (${problem}): ${redactUrl(url)}`, URL_HINT);
  return url;
}

/**
 * The option's value (`--db`, `--to`): a URL; a bare flag (`--db`) means the environment's
 * (`PI_SESSION_DATABASE_URL`, else pg's `PG*` variables); undefined then.
 */
export function databaseUrl(value: unknown, flag: string): string | undefined {
  if (value === undefined || value === true) return undefined;
  if (value === "" || Array.isArray(value))
    throw new UsageError(`${flag} takes one PostgreSQL URL (postgresql://user@host/db)`);
  return readableUrl(String(value), flag);
}

/**
 * What a run must never print of a database's credentials: every argument that looks like a
 * connection string (`postgresql://…`, `--to=…`, `password=…`) and `PI_SESSION_DATABASE_URL`
 * are replaced by their redacted form, then every password they hold and `PGPASSWORD` by
 * `***`. Undefined when there is nothing to hide. The program's `Io` runs it over stderr, so
 * an argument echoed by the parser ("Unused args"), a stack under `PI_SESSION_DEBUG` or a
 * warning is masked as well as our own messages.
 */
export function credentialMask(
  argv: readonly string[],
  env: Context["env"],
): ((text: string) => string) | undefined {
  const urls = new Set<string>();
  for (const token of argv) {
    if (!token.includes("://") && !/password\s*=/i.test(token)) continue;
    urls.add(token);
    const eq = token.indexOf("=");
    if (token.startsWith("-") && eq > 0) urls.add(token.slice(eq + 1));
  }
  if (env.PI_SESSION_DATABASE_URL) urls.add(env.PI_SESSION_DATABASE_URL);
  const secrets = new Set<string>();
  if (env.PGPASSWORD) secrets.add(env.PGPASSWORD);
  const shown: [string, string][] = [];
  for (const url of urls) {
    for (const secret of urlSecrets(url)) secrets.add(secret);
    const redacted = redactUrl(url);
    if (redacted !== url) shown.push([url, redacted]);
  }
  if (shown.length === 0 && secrets.size === 0) return undefined;
  // Longest first: a URL or secret that holds another is replaced whole.
  shown.sort((a, b) => b[0].length - a[0].length);
  const hidden = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const [url, redacted] of shown) if (out.includes(url)) out = out.split(url).join(redacted);
    for (const secret of hidden) if (out.includes(secret)) out = out.split(secret).join("***");
    return out;
  };
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
  const fromEnv = ctx.env.PI_SESSION_DATABASE_URL || undefined;
  const chosen = url ?? (fromEnv === undefined ? undefined : readableUrl(fromEnv, "PI_SESSION_DATABASE_URL"));
  const postgres = await import("@pi-session/postgres");
  const where = chosen === undefined ? "the database of the PG* environment" : redactUrl(chosen);
  try {
    return await postgres.openPostgresDatabase({
      ...(chosen !== undefined ? { url: chosen } : {}),
      env: ctx.env,
      readOnly: opts.readOnly,
      onWarning: (m) => ctx.io.warn(m),
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
    throw new CliError(`${where}: ${message}`, hint ? { hint } : {});
  }
}

/** Runs `fn` and turns a database failure (the package scrubbed it) into a {@link CliError}. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CliError || !(error instanceof Error)) throw error;
    if (error.name !== "PostgresDatabaseError" && (error as { code?: unknown }).code === undefined)
      throw error;
    throw new CliError(error.message);
  }
}
