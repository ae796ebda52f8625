/**
 * The app's side of the server's API: JSON reads (the token travels in the HttpOnly cookie the
 * server set, never in script), and the server-sent events that say what changed.
 */
import type { StoreChange, SessionRow as StoreRow } from "../src/rows.js";

/** A session as `/api/sessions` sends it: the server's list row, without the parent's path. */
export type SessionRow = Omit<StoreRow, "parentPath">;

/** What one refresh changed, as the server's events say it. */
export type Change = StoreChange;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { credentials: "same-origin", ...(signal ? { signal } : {}) });
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
  source = new EventSource("/api/events");
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
