/**
 * The session types of @pi-session/sdk are pi 1.6.0's (`@earendil-works/pi-coding-agent`):
 * each entry type, the header, the tree node, the context and projection are assignable to
 * pi's and pi's to ours, and our `SessionManager` is what pi hands an extension as
 * `ctx.sessionManager` (pi's `ReadonlySessionManager`) and has every public method of pi's class
 * with a compatible signature. The pi-types test compiles this file under `strict`; a pair that
 * does not line up is a compile error.
 *
 * `@pi-session/format`'s types are the wider types of what files hold: pi's entries and header
 * are assignable to them, and the `@ts-expect-error` lines below pin where they are wider than
 * pi's (a compaction without `firstKeptEntryId`, a header without `cwd`).
 */
import type * as pi from "@earendil-works/pi-coding-agent";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type * as raw from "@pi-session/format";
import type * as ours from "@pi-session/sdk";
import { SessionManager } from "@pi-session/sdk";
import type * as tree from "@pi-session/tree";

type Both<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function both<_Check extends true>(): void {}
/** What other code can reach of a class: its public members (private ones are not keys). */
type PublicOf<T> = Pick<T, keyof T>;
/** pi's entry type of this tag (pi's index does not export every entry type by name). */
type PiEntry<Type> = Extract<pi.SessionEntry, { type: Type }>;
/** pi's `ReadonlySessionManager` (not exported by name from pi's index). */
type PiReadonlySessionManager = ExtensionContext["sessionManager"];

// Entries, one type at a time, then the unions, the header, a file line and a tree node.
both<Both<pi.SessionMessageEntry, ours.SessionMessageEntry>>();
both<Both<pi.ThinkingLevelChangeEntry, ours.ThinkingLevelChangeEntry>>();
both<Both<pi.ModelChangeEntry, ours.ModelChangeEntry>>();
both<Both<PiEntry<"usage">, ours.UsageEntry>>();
both<Both<pi.CompactionEntry, ours.CompactionEntry>>();
both<Both<pi.CompactionEntry<{ files: string[] }>, ours.CompactionEntry<{ files: string[] }>>>();
both<Both<pi.BranchSummaryEntry, ours.BranchSummaryEntry>>();
both<Both<pi.CustomEntry, ours.CustomEntry>>();
both<Both<pi.CustomMessageEntry, ours.CustomMessageEntry>>();
both<Both<pi.ContextEditEntry, ours.ContextEditEntry>>();
both<Both<PiEntry<"label">, ours.LabelEntry>>();
both<Both<pi.SessionInfoEntry, ours.SessionInfoEntry>>();
both<Both<pi.SessionEntry, ours.SessionEntry>>();
both<Both<pi.SessionHeader, ours.SessionHeader>>();
both<Both<pi.FileEntry, ours.FileEntry>>();
both<Both<pi.SessionTreeNode, ours.SessionTreeNode>>();
both<Both<pi.SessionContext, ours.SessionContext>>();
both<Both<pi.SessionInfo, ours.SessionInfo>>();

// What the manager returns, read through pi's types.
declare const manager: ours.SessionManager;
export const entries: pi.SessionEntry[] = manager.getEntries();
export const header: pi.SessionHeader | null = manager.getHeader();
export const nodes: pi.SessionTreeNode[] = manager.getTree();
export const projection: pi.SessionProjection = manager.buildSessionProjection();
export const context: pi.SessionContext = manager.buildSessionContext();

// Our manager is pi's ReadonlySessionManager, the one extensions get as ctx.sessionManager...
export const forExtensions: PiReadonlySessionManager = manager;
export const readonlyView: PiReadonlySessionManager = SessionManager.openReadonly("/tmp/session.jsonl");
// ...and has every public method of pi's class, but `_persist` (public in pi's declaration,
// an internal of pi's: ours keeps its writer private).
export const everyMethod: Omit<PublicOf<pi.SessionManager>, "_persist"> = manager;

// pi's manager is ours, but for what only ours has.
declare const piManager: pi.SessionManager;
export const piAsReadonly: ours.ReadonlySessionManager = piManager;
export const piAsOurs: Omit<
  PublicOf<ours.SessionManager>,
  "onForeignEntries" | "setWriteOptions" | "close" | "isReadonly"
> = piManager;

// format's types take pi's values; they are wider than pi's where old files are.
declare const piEntry: pi.SessionEntry;
declare const piHeader: pi.SessionHeader;
declare const piNode: pi.SessionTreeNode;
export const rawEntry: raw.SessionEntry = piEntry;
export const rawAny: raw.AnyEntry = piEntry;
export const rawHeader: raw.SessionHeader = piHeader;
export const rawNode: tree.SessionTreeNode = piNode;
declare const rawCompaction: raw.CompactionEntry;
declare const fileHeader: raw.SessionHeader;
// @ts-expect-error a compaction read from a v1 file may have no firstKeptEntryId
export const narrowCompaction: pi.CompactionEntry = rawCompaction;
// @ts-expect-error a v1 header may have no cwd
export const narrowHeader: pi.SessionHeader = fileHeader;
