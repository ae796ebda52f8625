/**
 * DOM helpers of the app: render's element helper and session text as shown
 * (`@pi-session/render/dom`, shared with the exported page), and the app's own formatting of
 * numbers, times and projects. Every node is made with `createElement` and every piece of
 * text is set as text: nothing from a session (or from the server) is ever parsed as HTML.
 */
import { h, shown } from "@pi-session/render/dom";

export { type Child, h, shown } from "@pi-session/render/dom";

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with attributes. */
export function svg(
  tag: string,
  attrs: Record<string, string | number> = {},
  children: Node[] = [],
): SVGElement {
  const el = document.createElementNS(SVG, tag) as SVGElement;
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child);
  return el;
}

/** One line of session text (newlines as spaces) cut to `width` characters. */
export function oneLine(text: string, width = 200): string {
  const line = shown(text).replace(/\s+/g, " ").trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

const INT = new Intl.NumberFormat("en-US");

export function formatInt(n: number): string {
  return INT.format(Math.round(n));
}

/** Tokens as 1.2M / 34.5k / 980. */
export function formatTokens(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return formatInt(n);
}

/** A cost in dollars: cents below $100, whole dollars above. */
export function formatCost(n: number): string {
  if (n === 0) return "$0";
  if (n < 0.01) return "<$0.01";
  return n >= 100 ? `$${formatInt(n)}` : `$${n.toFixed(2)}`;
}

/** A time as the app shows it: today's by the clock, older ones by date. */
export function shortTime(ms: number, now = Date.now()): string {
  if (!Number.isFinite(ms) || ms <= 0) return "—";
  const d = new Date(ms);
  const today = new Date(now);
  const sameDay =
    d.getFullYear() === today.getFullYear() &&
    d.getMonth() === today.getMonth() &&
    d.getDate() === today.getDate();
  const pad = (x: number) => String(x).padStart(2, "0");
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (sameDay) return clock;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock}`;
}

/** The last path segments of a project directory, for narrow columns. */
export function projectName(project: string): string {
  const parts = project.split(/[\\/]/).filter((p) => p !== "");
  return parts.length === 0 ? project || "(no project)" : parts.slice(-2).join("/");
}

/**
 * A short label for each project that no other project of `projects` shares: its last two
 * path segments, more of them where two projects end alike (`a/web/app`, `b/web/app`), the
 * whole path where nothing shorter tells it apart.
 */
export function projectLabels(projects: Iterable<string>): Map<string, string> {
  const all = [...new Set(projects)];
  const parts = new Map(all.map((p) => [p, p.split(/[\\/]/).filter((x) => x !== "")]));
  const labels = new Map<string, string>();
  for (const project of all) {
    const mine = parts.get(project) as string[];
    let label = project || "(no project)";
    for (let n = Math.min(2, mine.length); n <= mine.length && n > 0; n++) {
      const tail = mine.slice(-n).join("/");
      const shared = all.some(
        (other) => other !== project && (parts.get(other) as string[]).slice(-n).join("/") === tail,
      );
      if (!shared) {
        label = n === mine.length ? project : tail;
        break;
      }
    }
    labels.set(project, label);
  }
  return labels;
}

/** Text with the given ranges marked (`<mark>`), each piece set as text. */
export function marked(text: string, ranges: readonly (readonly [number, number])[]): DocumentFragment {
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || start >= text.length) continue;
    if (start > at) frag.append(shown(text.slice(at, start)));
    frag.append(h("mark", { text: shown(text.slice(start, Math.min(end, text.length))) }));
    at = Math.min(end, text.length);
  }
  if (at < text.length) frag.append(shown(text.slice(at)));
  return frag;
}

/**
 * Each id's shortest start (8 characters at least, as the CLI prints them) that no other id of
 * `ids` shares, so a short id shown can be typed back (in the filter, the search, the URL).
 */
export function shortIds(ids: Iterable<string>, min = 8): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const common = (a = "", b = "") => {
    let k = 0;
    while (k < a.length && k < b.length && a[k] === b[k]) k++;
    return k;
  };
  return new Map(
    sorted.map((id, i) => {
      const shared = Math.max(common(id, sorted[i - 1]), common(id, sorted[i + 1]));
      return [id, id.slice(0, Math.max(min, shared + 1))];
    }),
  );
}
