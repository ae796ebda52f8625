/**
 * @pi-session/render: a pi session as a document model, then Markdown, plain text and one
 * self-contained HTML page; redaction for sharing. Pure: runs in Node, browsers and workers.
 *
 * The public face of the package; see the README for what each export is for.
 */
export {
  type RenderSession,
  type RenderSessionInput,
  createRenderSession,
  sessionFromBytes,
  sessionFromRecords,
  sessionFromText,
} from "./source.js";
export {
  type Block,
  type CodeBlock,
  DOCUMENT_FORMAT,
  DOCUMENT_VERSION,
  type DocumentItem,
  type DocumentSession,
  type DocumentView,
  type ImageBlock,
  type ItemDetail,
  type ItemKind,
  type ItemOrigin,
  type NoteBlock,
  type OutputBlock,
  type RenderDocument,
  type TextBlock,
  type ThinkingBlock,
  type ToolCallBlock,
  type ViewKind,
} from "./model/shapes.js";
export {
  type DocumentOptions,
  type DocumentSessionParts,
  type TreePlace,
  buildDocument,
  documentSessionOf,
  placedItem,
  sessionTitle,
  titleOf,
} from "./model/document.js";
export { entryItem } from "./model/entry-item.js";
export { type ItemOptions, messageItem } from "./model/message-item.js";
export {
  type ToolCallInfo,
  type ToolCallLookup,
  addToolCalls,
  collectToolCalls,
  mainArgument,
} from "./model/tool-calls.js";
export {
  type DiffLine,
  type DiffLineKind,
  type EditDiff,
  computeDiff,
  diffText,
  editDiff,
  parsePiDiff,
} from "./model/diff.js";
export {
  type CallRole,
  type RowGroup,
  callRoleOfEntry,
  callRoleOfItem,
  groupResults,
} from "./model/call-results.js";
export { type SessionTotals, sessionTotals } from "./model/totals.js";
export { type Folded, type FoldedRest, type FoldLimit, describeRest, foldText } from "./fold.js";
export { languageOfPath } from "./model/languages.js";
export {
  DEFAULT_FOLD_LINES,
  type FoldLimits,
  type TextOptions,
  type TextStyle,
  renderText,
  renderTextChunks,
  renderTextItem,
} from "./text.js";
export {
  type DocumentHead,
  type MarkdownOptions,
  escapeInline,
  fence,
  inlineCode,
  markdownChunks,
  renderMarkdown,
  safeMarkdown,
} from "./markdown.js";
export { formatInt, localTime, utcTime } from "./readable.js";
export { type HtmlOptions, escapeHtml, renderHtml, renderHtmlChunks, scriptJson } from "./html.js";
export { type PolicySources, contentSecurityPolicy } from "./csp.js";
export { type JsonlOptions, branchJsonlLines, jsonlLines } from "./jsonl.js";
export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportOptions,
  STREAMED_FORMATS,
  type StreamedBranch,
  type StreamedEntry,
  type StreamedFormat,
  documentJsonChunks,
  exportChunks,
  streamedExportChunks,
} from "./export.js";
export {
  CONTEXT_REDACTION_RULES,
  DEFAULT_REDACTION_RULES,
  type RedactionReport,
  type RedactionRule,
  type RedactOptions,
  Redactor,
  SIGNATURE_KEYS,
  type SecretDetector,
  type SecretMatch,
  compilePattern,
  redactSession,
  redactionMarker,
  ruleDetector,
  separateMatches,
} from "./redact.js";
export {
  escapeChar,
  hasUnsafe,
  hasUnsafeInLines,
  lineEndsAsLf,
  oneLineField,
  stripColorCodes,
  visibleControls,
} from "./sanitize.js";
export { type Token, type TokenKind, HIGHLIGHT_LIMIT, canHighlight, highlight } from "./highlight.js";
export {
  IMAGE_TYPES,
  type SafeImage,
  decodeBase64,
  decodedSize,
  imageDataUrl,
  imageProblem,
  safeImage,
} from "./images.js";
export {
  type FilterContext,
  TREE_FILTERS,
  type TreeFilter,
  isSettingsEntry,
  isToolOnlyAssistant,
  searchText,
  searchTokens,
  transcriptFilterPasses,
  treeFilterPasses,
} from "./filters.js";
export { type EntrySummary, entrySummary, oneLine } from "./summary.js";
export {
  type Piece,
  charWidth,
  cutEnd,
  cutStart,
  fitPieces,
  headOf,
  textWidth,
  wrapLine,
} from "./width.js";
export { MAX_INDENTED_DEPTH, escapeTerminalUnsafe, jsonText, serializeJson, writeJson } from "./json.js";
export {
  type BranchIndentation,
  type TreeLayout,
  branchIndentation,
  layoutTree,
  newestLeafBelow,
  siblingsOf,
} from "./tree-layout.js";
export { TREE_COLLAPSE_AFTER, type TreeTextOptions, renderTreeLines } from "./tree-text.js";
