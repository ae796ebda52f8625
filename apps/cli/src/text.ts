/**
 * Small presentation helpers shared by the commands: dates and numbers
 * (tables fitted to a width are `columns.ts`'s). No format logic: they only read fields for display.
 */

/** `2026-11-02 09:00` in local time, or the input when it is not a date. */
export function shortDate(value: string | number | undefined): string {
  if (value === undefined) return "-";
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * A count as every renderer writes it (`12,345`): render's, from its own entry, so a command
 * that prints counts does not take in the renderers.
 */
export { formatInt } from "@pi-session/render/readable";

/** A cost to the cent, `$1,234.56`; one under half a cent but not 0 is `<$0.01`. */
export function formatCost(cost: number): string {
  if (cost > 0 && cost < 0.005) return "<$0.01";
  return `$${cost.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * A path as human output shows it: under the home directory, `~/...` (the home itself `~`);
 * anything else as it is. `--json` keeps full paths.
 */
export function tildePath(path: string, home: string | undefined): string {
  if (home === undefined || home === "" || home === "/") return path;
  const base = home.replace(/[\\/]+$/, "");
  if (path === base) return "~";
  const next = path[base.length];
  return path.startsWith(base) && (next === "/" || next === "\\") ? `~${path.slice(base.length)}` : path;
}

/** The home directory human output shortens to `~`: `HOME` of the command's environment. */
export function homeOf(env: Record<string, string | undefined>): string | undefined {
  return env.HOME ?? env.USERPROFILE;
}
