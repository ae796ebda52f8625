/**
 * What an exported page embeds, shared by the page writer (`html.ts`) and the viewer
 * (`page/app.ts`): the settings and the first screen of items (rendered before the rest of the
 * page is even parsed, so a 100 MB session shows its first messages at once), then every
 * entry of the session for the full viewer.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { type TreeFilter, transcriptFilterPasses } from "./filters.js";
import { buildDocument, treeItem } from "./model/document.js";
import type { DocumentItem, ViewKind } from "./model/shapes.js";
import { collectToolCalls } from "./model/tool-calls.js";
import type { SessionTotals } from "./model/totals.js";
import type { RedactionReport } from "./redact.js";
import type { RenderSession } from "./source.js";
import { layoutTree } from "./tree-layout.js";

/** Items the page shows first (and the viewer's first batch). */
export const FIRST_SCREEN_ITEMS = 40;

/** Ids of the two JSON script elements. */
export const FIRST_SCREEN_ID = "pi-session-first";
export const ENTRIES_ID = "pi-session-data";

export interface PageSettings {
  v: 1;
  title: string;
  /** The session's name (latest `session_info`). */
  name?: string;
  header: SessionHeader | null;
  formatVersion: number;
  entryCount: number;
  /** The session's leaf id. */
  leafId: string | null;
  initial: { view: ViewKind; leafId: string | null; filter: TreeFilter };
  redaction?: RedactionReport;
  generator?: string;
  /** Models, messages, tool calls, tokens and cost of the entries the page holds. */
  totals?: SessionTotals;
  /** The page holds one branch only (`--leaf`): the others were left out. */
  branchOnly?: boolean;
}

export interface PageFirstScreen {
  settings: PageSettings;
  /** The first items of the initial view, as the viewer renders them. */
  items: DocumentItem[];
  /** Items in the whole initial view. */
  rows: number;
  /** For the context view: what the status line says. */
  context?: {
    model: { provider: string; modelId: string } | null;
    thinkingLevel: string;
    messageCount: number;
  };
}

export interface PageEntries {
  entries: AnyEntry[];
}

/** The first screen of `session` opened with `initial`. */
export function firstScreen(
  session: RenderSession,
  settings: PageSettings,
): Pick<PageFirstScreen, "items" | "rows" | "context"> {
  const { view, leafId, filter } = settings.initial;
  if (view === "context") {
    const doc = buildDocument(session, { view: "context", leafId });
    const out: Pick<PageFirstScreen, "items" | "rows" | "context"> = {
      items: doc.items.slice(0, FIRST_SCREEN_ITEMS),
      rows: doc.items.length,
    };
    if (doc.view.kind === "context")
      out.context = {
        model: doc.view.model,
        thinkingLevel: doc.view.thinkingLevel,
        messageCount: doc.view.messageCount,
      };
    return out;
  }
  const { index } = session;
  const layout = layoutTree(index);
  const toolCalls = collectToolCalls(index.entries);
  const positions: number[] = [];
  if (view === "all-branches") positions.push(...layout.order);
  else if (leafId !== null) {
    for (const entry of index.activePath(leafId)) {
      const at = layout.positionOf(entry);
      if (at !== undefined) positions.push(at);
    }
  }
  const items: DocumentItem[] = [];
  let rows = 0;
  for (const at of positions) {
    const entry = index.entries[at] as AnyEntry;
    if (!transcriptFilterPasses(entry, filter, { labelled: index.getLabel(entry.id) !== undefined }))
      continue;
    rows++;
    if (items.length < FIRST_SCREEN_ITEMS) items.push(treeItem(session, layout, at, toolCalls));
  }
  return { items, rows };
}
