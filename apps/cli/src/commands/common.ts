/**
 * Helpers shared by the commands: turning a `<session>` argument into a loaded session, and
 * reading typed option values with usage errors (exit 2) for bad ones.
 */
import { type LoadedSession, loadSession } from "../load.js";
import { resolveSession } from "../locate.js";
import type { Context } from "../program.js";
import { UsageError } from "../errors.js";
import { parseSince } from "../text.js";

export function sessionPath(ctx: Context, arg: unknown): string {
  if (typeof arg !== "string" || arg === "") throw new UsageError("missing <session> argument");
  return resolveSession(arg, { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
}

export function openSession(ctx: Context, arg: unknown): Promise<LoadedSession> {
  return loadSession(sessionPath(ctx, arg));
}

/** A string option (cac gives numbers for numeric-looking values, `true` for a bare flag). */
export function stringOption(
  options: Record<string, unknown>,
  name: string,
  flag: string,
): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === true || value === "" || Array.isArray(value)) throw new UsageError(`${flag} needs a value`);
  return String(value);
}

export function intOption(options: Record<string, unknown>, name: string, flag: string): number | undefined {
  const raw = stringOption(options, name, flag);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} needs a whole number, got \`${raw}\``);
  return n;
}

/** `--since DATE` as epoch ms (YYYY-MM-DD, an ISO time, or 7d / 12h back from now). */
export function sinceOption(options: Record<string, unknown>): number | undefined {
  const raw = stringOption(options, "since", "--since");
  if (raw === undefined) return undefined;
  const ms = parseSince(raw, Date.now());
  if (ms === undefined)
    throw new UsageError(
      `--since: cannot read \`${raw}\` as a date`,
      "Use YYYY-MM-DD, an ISO time, or 7d / 12h.",
    );
  return ms;
}

/** An entry id option that must exist in the session. */
export function entryIdOption(
  session: LoadedSession,
  options: Record<string, unknown>,
  name: string,
  flag: string,
): string | undefined {
  const id = stringOption(options, name, flag);
  if (id === undefined) return undefined;
  if (!session.index.has(id)) {
    throw new UsageError(
      `${flag} ${id}: no entry with that id in ${session.path}`,
      "See the ids with `pi-session tree <session>`.",
    );
  }
  return id;
}
