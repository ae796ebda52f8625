/**
 * Watching a session store: `fs.watch` on the sessions root and on each per-project directory
 * in it, coalesced into one call of `onChange` shortly after a burst of events, with a timer
 * that calls it every `pollMs` as well (the only source where watching is impossible: no
 * inotify watches left, a file system without events; and a safety net for events a watcher
 * misses). Use it to keep a view of a store live (`pi-session serve`).
 *
 * It says only that something may have changed, not what: the caller checks the files again
 * (the session database's `sync` is a stat per file when nothing changed). Nothing is read or
 * written here but directory listings of the root.
 */
import { type FSWatcher, readdirSync, watch } from "node:fs";
import { join } from "node:path";

export interface WatchStoreOptions {
  /** Called a short while after changes (at most once per `debounceMs`), and every `pollMs`. */
  onChange: () => void;
  /** Events within this many ms make one call (default 50). */
  debounceMs?: number;
  /** Calls `onChange` this often (ms) whatever the watchers say (default 2000; 0: never). */
  pollMs?: number;
  /** How often (ms) while nothing is watched: watching failed, or `pollOnly` (default 500). */
  fallbackPollMs?: number;
  /** Use no `fs.watch` at all, only the timer (default false). */
  pollOnly?: boolean;
}

export interface StoreWatch {
  /** `watch`: `fs.watch` watches the root; `poll`: only the timer (watching failed or was not asked for). */
  readonly mode: "watch" | "poll";
  /** Directories watched now. */
  readonly watched: readonly string[];
  /** Stops every watcher and timer. */
  close(): void;
}

/** Watches `root` and its subdirectories (see the module header). */
export function watchStore(root: string, options: WatchStoreOptions): StoreWatch {
  const debounceMs = options.debounceMs ?? 50;
  const pollMs = options.pollMs ?? 2000;
  const fallbackPollMs = Math.min(
    options.fallbackPollMs ?? 500,
    pollMs > 0 ? pollMs : Number.POSITIVE_INFINITY,
  );
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  let failed = options.pollOnly === true;
  let pending: ReturnType<typeof setTimeout> | undefined;

  const fire = () => {
    pending = undefined;
    if (!closed) options.onChange();
  };
  const schedule = () => {
    if (closed || pending !== undefined) return;
    pending = setTimeout(fire, debounceMs);
    pending.unref?.();
  };

  const unwatch = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
  };

  const watchDir = (dir: string): boolean => {
    if (watchers.has(dir)) return true;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        schedule();
        // A new project directory needs a watcher of its own (the root's sees only its name).
        if (dir === root && name !== null && !String(name).endsWith(".jsonl")) refreshDirs();
      });
      watcher.on("error", () => {
        // A watched directory removed, or the watcher broke: the timer still sees changes.
        unwatch(dir);
        schedule();
      });
      watchers.set(dir, watcher);
      return true;
    } catch {
      return false;
    }
  };

  /** Watches the root and each subdirectory of it; drops watchers of directories gone. */
  function refreshDirs(): void {
    if (closed || failed) return;
    if (!watchDir(root)) {
      // No root yet (or no watches left): only the timer, until a tick finds it.
      if (watchers.size === 0) return;
    }
    let names: string[];
    try {
      names = readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      return;
    }
    const wanted = new Set(names.map((name) => join(root, name)));
    for (const dir of [...watchers.keys()]) if (dir !== root && !wanted.has(dir)) unwatch(dir);
    for (const dir of wanted) {
      if (!watchDir(dir)) {
        // Out of watches (ENOSPC): fall back to the timer for the whole store.
        failed = true;
        for (const d of [...watchers.keys()]) unwatch(d);
        return;
      }
    }
  }

  refreshDirs();
  // One timer at the fallback rate; while watchers work, it calls back only every pollMs.
  let lastPoll = Date.now();
  const tick = Number.isFinite(fallbackPollMs) ? fallbackPollMs : pollMs;
  const timer =
    tick > 0
      ? setInterval(() => {
          refreshDirs();
          const now = Date.now();
          if (watchers.size > 0 && (pollMs <= 0 || now - lastPoll < pollMs)) return;
          lastPoll = now;
          schedule();
        }, tick)
      : undefined;
  timer?.unref?.();

  return {
    get mode() {
      return watchers.size > 0 ? "watch" : "poll";
    },
    get watched() {
      return [...watchers.keys()];
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      if (pending !== undefined) clearTimeout(pending);
      for (const dir of [...watchers.keys()]) unwatch(dir);
    },
  };
}
