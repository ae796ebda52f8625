/**
 * @pi-session/sdk: a drop-in for pi 1.6.0's `SessionManager` and its free functions
 * (`@earendil-works/pi-coding-agent`), safer on disk. A thin composition of the
 * `format`, `migrate`, `tree`, `context` and `node-store` layers; see the README for the few
 * deliberate differences from pi.
 */
export { convertToLlm } from "@pi-session/context";
export { CURRENT_SESSION_VERSION } from "@pi-session/format";
export { assertValidSessionId } from "@pi-session/node-store";
export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  findMostRecentSession,
  getDefaultSessionDir,
  getLatestCompactionEntry,
  loadEntriesFromFile,
  migrateSessionEntries,
  parseSessionEntries,
  projectContextEntry,
  sessionEntryToContextMessages,
} from "./free-functions.js";
export { uuidv7 } from "./internal/ids.js";
export {
  ENV_NO_CACHE,
  type ReadonlySessionManager,
  SessionManager,
  type WriteOptions,
} from "./session-manager.js";
export type * from "./types.js";

import { SessionManager } from "./session-manager.js";

/** Open a session file for reading only; see {@link SessionManager.openReadonly}. */
export function openReadonly(path: string, cwdOverride?: string) {
  return SessionManager.openReadonly(path, cwdOverride);
}
