/**
 * `context <session>`: what the model sees when the session is resumed, as pi 1.6.0 rebuilds
 * it (`buildSessionContext`), or with `--llm` after conversion to provider messages. The text
 * is the render layer's context view (the one `export --context` renders), fitted to the
 * terminal's width; `--json` prints the messages themselves.
 */
import { buildSessionContext, convertToLlm } from "@pi-session/context";
import { buildDocument, createRenderSession, renderTextChunks } from "@pi-session/render";
import type { Action } from "../program.js";
import { entryIdOption, openSession } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const session = await openSession(ctx, arg);
  const leaf = entryIdOption(session, options, "leaf", "--leaf");
  const llm = options.llm === true;
  if (ctx.json) {
    const built = buildSessionContext(session.entries, leaf ?? session.index.leafId, session.index);
    const messages = llm ? convertToLlm(built.messages) : built.messages;
    ctx.io.printJson({ messages, thinkingLevel: built.thinkingLevel, model: built.model });
    return 0;
  }
  const doc = buildDocument(
    createRenderSession({
      header: session.header,
      entries: session.entries,
      index: session.index,
      formatVersion: session.version,
      diagnostics: session.diagnostics,
    }),
    { view: "context", leafId: leaf, llm },
  );
  const chunks = renderTextChunks(doc, {
    full: options.full === true,
    style: ctx.io.out,
    foldHint: "; --full shows all",
    source: session.path,
    ...(ctx.io.columns !== undefined ? { width: ctx.io.columns } : {}),
  });
  // Each chunk ends with a newline; the boundary adds it back (and makes the text safe).
  for (const chunk of chunks) ctx.io.line(chunk.slice(0, -1));
  return 0;
};
