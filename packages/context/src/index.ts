/**
 * @pi-session/context: rebuilds exactly the LLM context pi 1.6.0 builds from a session.
 *
 * The public face of the package. Functions take plain entry arrays (v3 entries, as read and
 * migrated), an optional leaf id and an optional id lookup, like pi's own functions.
 */
export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  contextOfPathAccess,
  projectContextEntry,
  projectPathAccess,
  selectContextAccess,
  projectSessionPath,
  selectContextEntries,
  sessionEntryToContextMessages,
} from "./context.js";
export type { ProjectedSessionEntry, SessionContext, SessionProjection } from "./context.js";
export {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  bashExecutionToText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertToLlm,
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "./messages.js";
export type { LlmMessage } from "./messages.js";
export {
  arrayPathAccess,
  buildSessionPath,
  getLatestCompactionEntry,
  getSessionContextSettings,
  indexEntries,
} from "./path.js";
export type { EntryLookup, PathAccess, SessionContextSettings, SessionModel } from "./path.js";
