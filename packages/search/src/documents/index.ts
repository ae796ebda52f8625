/**
 * @pi-session/search/documents: the format logic of the session database, pure (no Node
 * module, no I/O), for every backend and for the browser: entries as search documents, the
 * query language, exact matching and snippets, the current branch, and usage rows with the
 * lineage-aware totals of `stats`, grouped by calendar period in a time zone.
 */
export {
  type EntryDocument,
  type RoleFilter,
  TEXT_FIELDS,
  type TextField,
  entryDocument,
  entryTime,
  hasText,
  roleClass,
  rolesOfFilter,
} from "./entry.js";
export { type SideEntry, type SideSummary, summarizeSide } from "./branch-sides.js";
export {
  type BranchCompare,
  type ComparedPath,
  type ComparedSide,
  compareBranches,
  comparePaths,
  defaultPair,
} from "./branch-compare.js";
export {
  FILE_ACTIONS,
  type FileAction,
  type FileTouch,
  type TouchBase,
  fileAction,
  fileTouches,
  resolveTouchPath,
  toolCallPaths,
} from "./file-touches.js";
export {
  type ParsedQuery,
  type QueryTerm,
  QuerySyntaxError,
  type RegexTerm,
  type SubstringTerm,
  type WordTerm,
  isWordText,
  parseQuery,
} from "./query.js";
export { type Snippet, documentMatches, snippetOf } from "./match.js";
export { type TreeLink, currentBranchFlags, extendsBranch } from "./branch.js";
export { escapeRegExp, hasCjk, segmentCjk, substringPattern } from "./text.js";
export {
  GROUPINGS,
  type GroupBy,
  PERIODS,
  type StatsOptions,
  type StatsResult,
  type StatsRow,
  type StatsRowSession,
  type StatsSession,
  type SummedSession,
  UNKNOWN_TIME,
  type UsagePart,
  computeStats,
} from "./usage.js";
export { type UsageRow, type UsageSource, usageRow, usageRows } from "./usage-rows.js";
export {
  type Accumulator,
  type TokenTotals,
  addUsage,
  costNanos,
  emptyAccumulator,
  roundCost,
} from "./usage-totals.js";
export { lineageRoots, sessionParent, statsSessionOf } from "./lineage.js";
export {
  QUARTER_HOUR_MS,
  type ZonedCalendar,
  zonedCalendar,
} from "./calendar.js";
export {
  IDENTIFIER_MAX_LENGTH,
  IDENTIFIER_MAX_PARTS,
  type IndexTexts,
  type NarrowingPhrase,
  type SubstringMatcher,
  type SubstringNarrowing,
  identifierParts,
  indexTexts,
  isPartStart,
  narrowingPhrases,
  stemPrefix,
  substringMatcher,
  substringNarrowing,
} from "./terms.js";
