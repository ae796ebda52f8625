/**
 * The app's side of the server's API: JSON reads and the server-sent events that say what
 * changed, each carrying the server's token. The token comes in the fragment of the URL the
 * server printed (`/#token=...`, never sent in a request), is taken out of the address bar at
 * once and kept in this origin's `localStorage` (scheme, host and port: no other server reads
 * it), so a reload and a tab opened from a link have it too. It goes to this server only: as
 * `Authorization: Bearer` on reads, as a `token` parameter where a header cannot be set (the
 * event stream, download links).
 */
import type { StoreChange, SessionRow as StoreRow } from "../src/rows.js";

/** A session as `/api/sessions` sends it: the server's list row, without the parent's path. */
export type SessionRow = Omit<StoreRow, "parentPath">;

/** What one refresh changed, as the server's events say it. */
export type Change = StoreChange;

const TOKEN_KEY = "pi-session-token";

/** Takes the token from the address (the fragment, or an older `?token=` URL) into storage. */
function adoptToken(): void {
  const fromHash = /^#token=([A-Za-z0-9_-]+)/.exec(location.hash)?.[1];
  const fromQuery = new URLSearchParams(location.search).get("token") ?? undefined;
  const token = fromHash ?? fromQuery;
  if (token === undefined) return;
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (a private mode): this tab keeps it in memory.
  }
  memoryToken = token;
  // The address without the token, in the bar and in the history.
  history.replaceState(
    null,
    "",
    `${location.pathname}${fromHash !== undefined ? "#/" : location.hash || "#/"}`,
  );
}

let memoryToken: string | undefined;
adoptToken();

/** The server's token, as this page has it (undefined: the page was opened without it). */
export function token(): string | undefined {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? memoryToken;
  } catch {
    return memoryToken;
  }
}

/** `path` with the token as a parameter: for a link or an EventSource, which send no header. */
export function withToken(path: string): string {
  const t = token();
  if (t === undefined) return path;
  return `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(t)}`;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const t = token();
  const res = await fetch(path, {
    credentials: "omit",
    headers: t === undefined ? {} : { Authorization: `Bearer ${t}` },
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { error?: string };
      if (body.error) message = body.error;
    } catch {
      // Not JSON: the status says it.
    }
    throw new ApiError(res.status, message);
  }
  return (await res.json()) as T;
}

type Listener = (change: Change) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;
let connected = false;
const statusListeners = new Set<(live: boolean) => void>();

/** Calls `listener` for every change the server reports; returns the unsubscribe. */
export function onChange(listener: Listener): () => void {
  listeners.add(listener);
  connect();
  return () => listeners.delete(listener);
}

/** Calls `listener` when the live connection comes or goes. */
export function onLive(listener: (live: boolean) => void): void {
  statusListeners.add(listener);
  listener(connected);
}

function connect(): void {
  if (source) return;
  source = new EventSource(withToken("/api/events"));
  source.addEventListener("hello", () => {
    connected = true;
    for (const l of statusListeners) l(true);
  });
  source.addEventListener("change", (event) => {
    const change = JSON.parse((event as MessageEvent<string>).data) as Change;
    for (const l of listeners) l(change);
  });
  // The dev server's rebuild (`pnpm --filter @pi-session/web dev`).
  source.addEventListener("reload", () => location.reload());
  source.addEventListener("error", () => {
    connected = false;
    for (const l of statusListeners) l(false);
  });
}
