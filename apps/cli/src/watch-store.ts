/**
 * node-store's store watcher, on its own, for `sync --watch` to import when it watches: a
 * one-off sync (the common case, from cron) then loads none of the watching code.
 */
export { watchStore } from "@pi-session/node-store";
