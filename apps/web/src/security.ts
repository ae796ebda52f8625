/**
 * The server's guards, one function each, so the request tests can hold every rule: a random
 * token on every API request (`Authorization: Bearer`, or a `token` parameter where a page
 * cannot set a header: the event stream, a download link), `Host` checked against the
 * addresses the server listens on (DNS rebinding), `Origin` and `Sec-Fetch-Site` checked for
 * cross-site requests, GET and HEAD only, and the headers every response carries (a
 * Content-Security-Policy that allows only the app's own script and style).
 *
 * No cookie: cookies ignore ports, so a browser sends one to every server on the same host
 * (another local server on another port got the token that way). The printed URL carries the
 * token in its fragment, which no request sends; the page keeps it in its origin's storage
 * (scheme, host and port) and sends it only to this server.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { contentSecurityPolicy } from "@pi-session/render";

/** A new token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The URL to open: the server's origin and its token in the fragment (`/#token=...`). */
export function tokenUrl(origin: string, token: string): string {
  return `${origin}/#token=${token}`;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return m?.[1];
}

/** Whether `given` is the token (in constant time). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(token, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The host part of a `Host` header (`[::1]:8080` → `::1`, `a:1` → `a`) and its port. */
export function splitHost(header: string): { host: string; port: string } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(header.trim());
  if (!m) return undefined;
  const host = (m[1] as string).replace(/^\[|\]$/g, "").toLowerCase();
  return { host, port: m[2] ?? "80" };
}

/**
 * Whether a request's `Host` names this server: the right port, and a name no other site can
 * point here (an IP address, `localhost`, or the `--host` name itself). A page of another site
 * whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name: refused.
 */
export function hostAllowed(header: string | undefined, port: number, listenHost: string): boolean {
  if (header === undefined) return false;
  const parsed = splitHost(header);
  if (!parsed || parsed.port !== String(port)) return false;
  const name = parsed.host;
  return isIP(name) !== 0 || name === "localhost" || name === listenHost.toLowerCase();
}

/**
 * Whether a request comes from another site: an `Origin` that is not this server's own (the
 * `Host` it was sent to), or the browser's `Sec-Fetch-Site: cross-site`.
 */
export function crossSite(
  origin: string | undefined,
  host: string | undefined,
  fetchSite: string | undefined,
): boolean {
  if (fetchSite === "cross-site") return true;
  if (origin === undefined) return false;
  return host === undefined || origin !== `http://${host}`;
}

/** The app's Content-Security-Policy: its own script and style, `data:` images, its own API. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy({
  script: "'self'",
  style: "'self'",
  connect: "'self'",
  frameAncestors: true,
});

/** Headers on every response. */
export const COMMON_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
};

/** Whether `--host` listens beyond this machine (anything but a loopback address or `localhost`). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}
