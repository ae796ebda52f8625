/**
 * @pi-session/sdk: a drop-in for pi 1.6.0's `SessionManager` and its free functions
 * (`@earendil-works/pi-coding-agent`), on Node 20, safer on disk. See the README for the few
 * deliberate differences.
 */
export { CURRENT_SESSION_VERSION } from "@pi-session/format";
export { loadEntriesFromFile, migrateSessionEntries, parseSessionEntries } from "./free-functions.js";
export { assertValidSessionId, uuidv7 } from "./internal/ids.js";
export { findMostRecentSession } from "./internal/listing.js";
export { getDefaultSessionDir } from "./internal/paths.js";
export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  getLatestCompactionEntry,
  projectContextEntry,
  sessionEntryToContextMessages,
} from "./internal/projection.js";
export { type ReadonlySessionManager, SessionManager, type WriteOptions } from "./session-manager.js";
export type * from "./types.js";

import { SessionManager } from "./session-manager.js";

/** Open a session file for reading only; see {@link SessionManager.openReadonly}. */
export function openReadonly(path: string, cwdOverride?: string) {
  return SessionManager.openReadonly(path, cwdOverride);
}
