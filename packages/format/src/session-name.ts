/**
 * The session name a `session_info` entry sets, by pi's rule: its `name` trimmed; an empty or
 * missing name clears it. Use it wherever a name is read from entries (the tree's index, the
 * listing's tail scan, search, stats), so every layer shows the same name.
 */

/** The trimmed name of a `session_info` entry; empty or missing clears it (undefined). */
export function sessionInfoName(entry: { readonly name?: unknown }): string | undefined {
  const name = entry.name;
  if (typeof name !== "string") return undefined;
  const trimmed = name.trim();
  return trimmed === "" ? undefined : trimmed;
}
