/**
 * The app's side of the server's API: JSON reads (the token travels in the HttpOnly cookie the
 * server set, never in script), and the server-sent events that say what changed.
 */

export interface SessionRow {
  key: string;
  id: string;
  path: string;
  project: string;
  name: string | null;
  firstMessage: string;
  created: string;
  modifiedMs: number;
  messageCount: number;
  entryCount: number;
  errored: boolean;
  parentKey: string | null;
  tokens: number;
  cost: number;
  size: number;
}

export interface Change {
  generation: number;
  changed: string[];
  removed: string[];
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
