/**
 * PostgreSQL URLs as they may be shown. {@link redactUrl} takes the password out of any string
 * a user gave as a database URL, whether it parses or not (a port out of range, a missing `]`,
 * a password with a raw `/`); {@link urlSecrets} lists the password as it may appear in a
 * message (as typed, percent-encoded, decoded), for a last pass over text that came from
 * elsewhere; {@link postgresUrlProblem} says why pg cannot read a URL, before it is tried.
 *
 * Use these before a URL (or an error that may quote one) reaches any message. This module
 * loads no `pg` (the `./url` export), so a program can mask URLs before it loads a driver.
 */

/** A URL pg cannot read: its message names the URL without its password. */
export class PostgresUrlError extends Error {
  override readonly name = "PostgresUrlError";
  constructor(
    /** Why the URL cannot be read, e.g. `port 99999 is out of range (0 to 65535)`. */
    readonly problem: string,
    /** The URL without its password. */
    readonly shown: string,
  ) {
    super(`not a PostgreSQL URL (${problem}): ${shown}`);
  }
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Whether a query parameter's name (decoded) names a password (`password`, `sslpassword`). */
function isPasswordKey(key: string): boolean {
  return /password/i.test(decoded(key));
}

/**
 * Where the password is in `url` as typed: after the first `:` of the user information, up
 * to the `@` that ends it. When the URL parses, the authority ends at the first `/`, `?` or
 * `#`; when it does not, at the last `@` of the string (more may be hidden, never less).
 */
function typedPassword(url: string, parses: boolean): { start: number; end: number } | undefined {
  const scheme = SCHEME.exec(url);
  if (!scheme || url.slice(scheme[0].length, scheme[0].length + 2) !== "//") return undefined;
  const from = scheme[0].length + 2;
  let authorityEnd = url.length;
  if (parses) {
    const stop = url.slice(from).search(/[/?#]/);
    if (stop >= 0) authorityEnd = from + stop;
  }
  const at = url.lastIndexOf("@", authorityEnd - 1);
  if (at < from) return undefined;
  const colon = url.indexOf(":", from);
  if (colon < 0 || colon > at) return undefined;
  return { start: colon + 1, end: at };
}

/** The query of `url` with every password parameter's value replaced by `***` (as text). */
function maskQueryText(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const hash = url.indexOf("#", q);
  const end = hash < 0 ? url.length : hash;
  const params = url
    .slice(q + 1, end)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq > 0 && isPasswordKey(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=***` : pair;
    });
  return `${url.slice(0, q + 1)}${params.join("&")}${url.slice(end)}`;
}

/** libpq's `key=value` form (`host=db password=x`): each password value. */
const KEYWORD_PASSWORD = /(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi;

/**
 * The URL as it may be shown: its password (in the user information or a `password`,
 * `sslpassword` parameter) removed, whatever the string is. A URL that parses is given back
 * as the URL parser writes it; one that does not, or that has a password and an `@` after its
 * host (`ada:p@a#b@host`: the parser reads the password `p` and the host `a`, the user meant
 * `p@a#b`), loses everything from its password up to its last `@`.
 */
export function redactUrl(url: string): string {
  const u = parsed(url);
  const loose = typedPassword(url, false);
  const ambiguous = u !== undefined && u.password !== "" && loose?.end !== typedPassword(url, true)?.end;
  if (u !== undefined && !ambiguous) {
    u.password = "";
    for (const key of [...u.searchParams.keys()]) if (isPasswordKey(key)) u.searchParams.set(key, "***");
    return u.toString();
  }
  if (!url.includes("://")) return url.replace(KEYWORD_PASSWORD, "$1***");
  const withoutPassword =
    loose === undefined ? url : `${url.slice(0, loose.start - 1)}${url.slice(loose.end)}`;
  return maskQueryText(withoutPassword);
}

/**
 * Every form in which the password of `url` may appear in a message: as typed, as the URL
 * parser writes it (percent-encoded), decoded; the same for password parameters. Empty when
 * there is none.
 */
export function urlSecrets(url: string): string[] {
  const out = new Set<string>();
  const add = (value: string) => {
    out.add(value);
    out.add(decoded(value));
  };
  const u = parsed(url);
  if (u !== undefined) {
    if (u.password !== "") add(u.password);
    for (const [key, value] of u.searchParams) if (isPasswordKey(key)) add(value);
  }
  // Both readings of the user information: up to the parser's `@`, and up to the last one.
  for (const at of [typedPassword(url, true), typedPassword(url, false)])
    if (at !== undefined) add(url.slice(at.start, at.end));
  const q = url.indexOf("?");
  if (q >= 0)
    for (const pair of url.slice(q + 1).split(/[&#]/)) {
      const eq = pair.indexOf("=");
      if (eq > 0 && isPasswordKey(pair.slice(0, eq))) add(pair.slice(eq + 1));
    }
  for (const m of url.matchAll(KEYWORD_PASSWORD)) add((m[2] ?? "").replace(/^'(.*)'$/s, "$1"));
  out.delete("");
  return [...out];
}

/** The host and port of a URL as typed (after the user information, before the path). */
function authorityOf(url: string): string {
  const scheme = SCHEME.exec(url);
  const rest = scheme ? url.slice(scheme[0].length).replace(/^\/\//, "") : url;
  const afterUser = rest.slice(rest.lastIndexOf("@") + 1);
  const stop = afterUser.search(/[/?#]/);
  return stop < 0 ? afterUser : afterUser.slice(0, stop);
}

/**
 * Why pg cannot read `url` (as pg reads it: spaces and stray `%` encoded first, an empty host
 * allowed before the path), or undefined when it can. A path starting with `/` is a socket
 * directory to pg, and fine.
 */
export function postgresUrlProblem(url: string): string | undefined {
  if (url.startsWith("/")) return undefined;
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || !["postgres", "postgresql", "socket"].includes(scheme))
    return "it does not start with postgresql://";
  let text = url;
  if (/ |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)) {
    try {
      text = encodeURI(text).replace(/%25(\d\d)/g, "%$1");
    } catch {
      return "it holds an unpaired surrogate";
    }
  }
  if (URL.canParse(text) || URL.canParse(text.replace("@/", "@___DUMMY___/"))) return undefined;
  const authority = authorityOf(url);
  if (authority.includes("[") && !authority.includes("]")) return "the host's [ has no ]";
  if (authority.includes(",")) return "several hosts in one URL are not supported";
  const port = /:([^:\]]*)$/.exec(authority)?.[1];
  if (port !== undefined && port !== "") {
    if (!/^\d+$/.test(port)) return "the port is not a number";
    if (Number(port) > 65535) return `port ${port} is over 65535`;
  }
  return "it does not parse as a URL; percent-encode @ : / ? # in the user name or password";
}
