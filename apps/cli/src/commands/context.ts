/**
 * `context <session>`: what the model sees when the session is resumed, as pi 1.6.0 rebuilds
 * it (`buildSessionContext`), or with `--llm` after conversion to provider messages.
 */
import { buildSessionContext, convertToLlm } from "@pi-session/context";
import type { Action } from "../program.js";
import { transcriptBlock } from "../render.js";
import { oneLineField } from "../terminal-safe.js";
import { entryIdOption, openSession } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const session = await openSession(ctx, arg);
  const leaf = entryIdOption(session, options, "leaf", "--leaf");
  const built = buildSessionContext(session.entries, leaf ?? session.index.leafId, session.index);
  const messages = options.llm === true ? convertToLlm(built.messages) : built.messages;
  if (ctx.json) {
    ctx.io.printJson({ messages, thinkingLevel: built.thinkingLevel, model: built.model });
    return 0;
  }
  const c = ctx.io.out;
  const model = built.model ? `${built.model.provider}/${built.model.modelId}` : "(none)";
  const summary = `model ${model} · thinking ${built.thinkingLevel} · ${messages.length} messages`;
  ctx.io.line(c.dim(oneLineField(summary)));
  for (const message of messages) {
    const block = transcriptBlock(
      c,
      { type: "message", message },
      { full: options.full === true, label: undefined, showIds: false },
    );
    if (block === undefined) continue;
    ctx.io.line();
    ctx.io.line(block);
  }
  return 0;
};
