/**
 * A session written by pi 1.6.0 itself, for the render tests and for comparing our pages with
 * pi's own export: pi's agent (`createAgentSession`) runs its real read, edit and bash tools in
 * a scratch project, driven by pi-ai's faux model, and pi's `SessionManager` writes the file.
 * It holds what reading a session is about: two parallel reads (results paired by
 * `toolCallId`), an edit whose result carries pi's `details.diff` (a one-line change inside a
 * six-line edit), an edit in the older top-level `oldText`/`newText` shape, bash output with
 * ANSI colours, a 117 KB single-line output, an image read back, CJK and emoji, and Markdown
 * with a nested list and a link with parentheses. Use {@link writeRichSession}.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxThinking,
  fauxToolCall,
} from "@earendil-works/pi-ai";
import {
  createAgentSession,
  createExtensionRuntime,
  ModelRuntime,
  type ResourceLoader,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";

/** A 2x2 PNG (red), read back by pi's read tool as an image. */
const PNG_2PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==";

export const LIMIT_TS = [
  "// Rate limits for the public API.",
  "export const LIMIT = 10;",
  "",
  "export function allow(n: number): boolean {",
  "  // inclusive: the tenth request is allowed",
  "  return n > LIMIT;",
  "}",
  "",
  "export function remaining(n: number): number {",
  "  return Math.max(0, LIMIT - n);",
  "}",
].join("\n");

/** The six lines the edit replaces; only the fifth changes. */
export const EDIT_OLD = LIMIT_TS.split("\n").slice(2, 8).join("\n");
export const EDIT_NEW = EDIT_OLD.replace("return n > LIMIT;", "return n <= LIMIT;");

export interface RichSession {
  /** The session file pi wrote. */
  path: string;
  /** The scratch project the tools ran in. */
  cwd: string;
}

export async function writeRichSession(): Promise<RichSession> {
  const root = mkdtempSync(join(tmpdir(), "pi-session-rich-"));
  const cwd = join(root, "project");
  const agentDir = join(root, "agent");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(cwd, "src", "limit.ts"), `${LIMIT_TS}\n`);
  writeFileSync(
    join(cwd, "src", "greet.py"),
    'def greet(name):\n    """Say hello."""\n    return f"Hello {name}"\n',
  );
  writeFileSync(join(cwd, "logo.png"), Buffer.from(PNG_2PX, "base64"));

  const faux = fauxProvider({
    api: "faux",
    provider: "faux",
    models: [
      {
        id: "faux-coder",
        input: ["text", "image"],
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
    ],
  });
  faux.setResponses([
    fauxAssistantMessage([
      fauxThinking("Two files to read first; I can read both at once."),
      fauxText("Let me read both files."),
      fauxToolCall("read", { path: "src/limit.ts" }, { id: "call_read_limit" }),
      fauxToolCall("read", { path: "src/greet.py" }, { id: "call_read_greet" }),
    ]),
    fauxAssistantMessage([
      fauxText("The check is inverted. Fixing it:"),
      fauxToolCall(
        "edit",
        { path: "src/limit.ts", edits: [{ oldText: EDIT_OLD, newText: EDIT_NEW }] },
        { id: "call_edit" },
      ),
    ]),
    fauxAssistantMessage([
      fauxToolCall(
        "edit",
        { path: "src/greet.py", oldText: 'return f"Hello {name}"', newText: 'return f"Hello, {name}!"' },
        { id: "call_edit_legacy" },
      ),
    ]),
    fauxAssistantMessage([
      fauxToolCall(
        "bash",
        { command: "printf '\\033[32m✓ 12 passed\\033[0m \\033[1;31m✗ 1 failed\\033[0m\\n'" },
        { id: "call_tests" },
      ),
    ]),
    fauxAssistantMessage([
      fauxToolCall("bash", { command: "head -c 117000 /dev/zero | tr '\\0' x" }, { id: "call_long" }),
    ]),
    fauxAssistantMessage([fauxToolCall("read", { path: "logo.png" }, { id: "call_image" })]),
    fauxAssistantMessage([
      fauxText(
        [
          "Done ✅ — 修正しました (限度を含む). Summary:",
          "",
          "1. `allow` now accepts the tenth request",
          "   - the check reads `n <= LIMIT`",
          "     - covered by the test run above",
          "2. The greeting has a comma ☕",
          "",
          "See [the docs (v2)](https://example.com/docs_(v2)) for the limits.",
          "",
          "```ts",
          "fn longest<'a>(x: &'a str) -> &'a str { x }",
          "```",
        ].join("\n"),
      ),
    ]),
  ]);

  const modelRuntime = await ModelRuntime.create({
    authPath: join(agentDir, "auth.json"),
    modelsPath: join(agentDir, "models.json"),
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const resourceLoader: ResourceLoader = {
    getExtensions: () => ({ extensions: [], errors: [], runtime: createExtensionRuntime() }),
    getSkills: () => ({ skills: [], diagnostics: [] }),
    getPrompts: () => ({ prompts: [], diagnostics: [] }),
    getThemes: () => ({ themes: [], diagnostics: [] }),
    getAgentsFiles: () => ({ agentsFiles: [] }),
    getSystemPrompt: () => "You are a careful coding assistant.",
    getSystemPromptSource: () => undefined,
    getAppendSystemPrompt: () => [],
    getAppendSystemPromptSources: () => [],
    extendResources: () => {},
    reload: async () => {},
  };
  const sessionManager = SessionManager.create(cwd, join(agentDir, "sessions"));
  const { session } = await createAgentSession({
    cwd,
    agentDir,
    model: faux.getModel(),
    thinkingLevel: "off",
    modelRuntime,
    resourceLoader,
    tools: ["read", "bash", "edit"],
    sessionManager,
    settingsManager: SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } }),
  });
  try {
    await session.prompt(
      "The rate limit refuses the tenth request; fix it, fix the greeting, run the tests.",
    );
  } finally {
    session.dispose();
  }
  const path = sessionManager.getSessionFile();
  if (path === undefined) throw new Error("pi wrote no session file");
  return { path, cwd };
}
