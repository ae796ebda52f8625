/**
 * @pi-session/search/documents: the format logic of the session database, pure (no Node
 * module, no I/O), for every backend and for the browser: entries as search documents, the
 * query language, exact matching and snippets, the current branch, and usage rows with the
 * lineage-aware totals of `stats`.
 */
export {
  type EntryDocument,
  type RoleFilter,
  TEXT_FIELDS,
  type TextField,
  contentText,
  entryDocument,
  entryTime,
  hasText,
  roleClass,
  toolCallPaths,
} from "./entry.js";
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
  type GroupBy,
  type StatsOptions,
  type StatsResult,
  type StatsRow,
  type StatsSession,
  type TokenTotals,
  type UsageRow,
  type UsageSource,
  computeStats,
  lineageRoots,
  localDay,
  usageRow,
  usageRows,
  withSums,
} from "./usage.js";
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
