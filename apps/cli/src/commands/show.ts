/**
 * `show <session>`: the transcript of the active branch (or every branch), for reading. The
 * text is the render layer's, from the same document `export` renders, so the two never
 * disagree; `--json` prints the entries themselves.
 */
import { buildDocument, createRenderSession, renderTextChunks } from "@pi-session/render";
import type { Action } from "../program.js";
import { entryIdOption, openSession } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const session = await openSession(ctx, arg);
  const leaf = entryIdOption(session, options, "leaf", "--leaf");
  const all = options.allBranches === true;
  const { index } = session;
  if (ctx.json) {
    const entries = all ? [...index.entries] : index.activePath(leaf ?? index.leafId);
    ctx.io.printJson({
      file: session.path,
      id: session.header.id,
      version: session.version,
      leafId: all ? index.leafId : (entries.at(-1)?.id ?? null),
      labels: Object.fromEntries(index.labels),
      entries,
    });
    return 0;
  }
  const doc = buildDocument(
    createRenderSession({
      header: session.header,
      entries: session.entries,
      index,
      formatVersion: session.version,
      diagnostics: session.diagnostics,
    }),
    { view: all ? "all-branches" : "branch", leafId: leaf },
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
