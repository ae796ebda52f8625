/**
 * Which files an entry's tool calls touch, and how: the one home of tool-call paths. The
 * search index's `file` filter takes every path a call names ({@link toolCallPaths}); file
 * activity (`pi-session files`, the web app's Files panel, the branch compare) takes the calls
 * that read, edit or write a file ({@link fileTouches}), with the path resolved against the
 * session's cwd ({@link resolveTouchPath}). Pure: no file system, no Node module.
 *
 * Use {@link fileTouches} on a v3 entry (migrate older files first, in memory).
 */

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a tool call did to a file. */
export type FileAction = "read" | "edit" | "write";

/** The actions in the order a summary lists them: changes first. */
export const FILE_ACTIONS: readonly FileAction[] = ["write", "edit", "read"];

/** One file a tool call touched. */
export interface FileTouch {
  /** The tool's name as called (`read`, `Edit`, `mcp__fs__write_file`). */
  tool: string;
  action: FileAction;
  /** The path as the call wrote it. */
  written: string;
  /** The path resolved against the session's cwd (see {@link resolveTouchPath}); as written when it cannot be. */
  path: string;
  /** The tool call's id, when it has one. */
  callId: string | null;
}

/** The argument keys that name a file, in the order they are read. */
const PATH_KEYS = ["path", "file_path", "filePath", "file", "notebook_path"] as const;

/** The file paths in one tool call's arguments (every key that names one, and a `paths` list). */
export function toolCallPaths(args: unknown): string[] {
  if (!isObject(args)) return [];
  const out: string[] = [];
  for (const key of PATH_KEYS) {
    const v = args[key];
    if (typeof v === "string" && v !== "") out.push(v);
  }
  if (Array.isArray(args.paths))
    for (const p of args.paths) if (typeof p === "string" && p !== "") out.push(p);
  return out;
}

/**
 * The tools that touch a file, by their name folded (lower case, letters and digits only, the
 * last part of a namespaced name): pi's own (`read`, `edit`, `write`), Claude Code's (`Read`,
 * `Edit`, `MultiEdit`, `Write`, `NotebookEdit`) and the names file tools of extensions and MCP
 * servers commonly use (`read_file`, `edit_file`, `write_file`, `create_file`, ...).
 */
const TOOL_ACTIONS: ReadonlyMap<string, FileAction> = new Map([
  ["read", "read"],
  ["readfile", "read"],
  ["view", "read"],
  ["viewfile", "read"],
  ["notebookread", "read"],
  ["edit", "edit"],
  ["editfile", "edit"],
  ["multiedit", "edit"],
  ["strreplace", "edit"],
  ["replaceinfile", "edit"],
  ["searchreplace", "edit"],
  ["notebookedit", "edit"],
  ["write", "write"],
  ["writefile", "write"],
  ["createfile", "write"],
  ["create", "write"],
]);

/** The editor tools that say what they do in a `command` argument (Anthropic's text editor). */
const COMMAND_TOOLS = new Set(["strreplacebasededittool", "strreplaceeditor", "texteditor"]);
const COMMAND_ACTIONS: ReadonlyMap<string, FileAction> = new Map([
  ["view", "read"],
  ["create", "write"],
  ["str_replace", "edit"],
  ["insert", "edit"],
  ["undo_edit", "edit"],
]);

/** A tool name folded: its last part after `__`, `.`, `/` or `:`, lower case, letters and digits only. */
function foldToolName(name: string): string {
  const last = name.split(/__|[./:]/).pop() ?? name;
  return last.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** What a call of `tool` with `args` does to the files it names, if it is a file tool. */
export function fileAction(tool: string, args: unknown): FileAction | undefined {
  const folded = foldToolName(tool);
  if (COMMAND_TOOLS.has(folded)) {
    const command = isObject(args) ? args.command : undefined;
    return typeof command === "string" ? COMMAND_ACTIONS.get(command) : undefined;
  }
  return TOOL_ACTIONS.get(folded);
}

/** Where relative paths are resolved from. */
export interface TouchBase {
  /** The session's cwd (its header's); relative paths stay as written when it is not absolute. */
  cwd: string;
  /** The home directory `~` stands for; without it a `~` path stays as written. */
  home?: string | undefined;
}

/** Lexical POSIX resolution of `path` under the absolute `dir`: `.`, `..` and repeated `/` folded. */
function joinPosix(dir: string, path: string): string {
  const parts = path.startsWith("/") ? [] : dir.split("/").filter((s) => s !== "");
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join("/")}`;
}

/**
 * A tool-call path as the tool resolved it, from text alone (no file system, so no symlink
 * is followed): a leading `@` dropped (pi's tools drop it), `~` and `~/x` under `home`,
 * relative paths against the session's cwd, `.` and `..` folded. A path that cannot be
 * resolved so (relative, with no absolute cwd; `~` without a home; a Windows path) is
 * returned as written.
 */
export function resolveTouchPath(written: string, base: TouchBase): string {
  let path = written.startsWith("@") ? written.slice(1) : written;
  if (path === "~" || path.startsWith("~/")) {
    if (base.home === undefined || !base.home.startsWith("/")) return path;
    path = base.home + path.slice(1);
  }
  if (path.startsWith("/")) return joinPosix("/", path);
  if (!base.cwd.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\")) return path;
  return joinPosix(base.cwd, path);
}

/** The files an entry's tool calls read, edit or write (an assistant message's calls; else none). */
export function fileTouches(entry: Obj, base: TouchBase): FileTouch[] {
  if (entry.type !== "message" || !isObject(entry.message)) return [];
  const message = entry.message;
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  const out: FileTouch[] = [];
  for (const block of message.content) {
    if (!isObject(block) || block.type !== "toolCall" || typeof block.name !== "string") continue;
    const action = fileAction(block.name, block.arguments);
    if (action === undefined) continue;
    const callId = typeof block.id === "string" ? block.id : null;
    for (const written of toolCallPaths(block.arguments))
      out.push({ tool: block.name, action, written, path: resolveTouchPath(written, base), callId });
  }
  return out;
}
