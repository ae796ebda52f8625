/**
 * `show <session>`: the transcript of the active branch (or every branch), for reading.
 */
import type { Action } from "../program.js";
import { transcriptBlock } from "../render.js";
import { oneLineField } from "../terminal-safe.js";
import { entryIdOption, openSession } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const session = await openSession(ctx, arg);
  const leaf = entryIdOption(session, options, "leaf", "--leaf");
  const all = options.allBranches === true;
  const { index } = session;
  const entries = all ? [...index.entries] : index.activePath(leaf ?? index.leafId);
  if (ctx.json) {
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
  const c = ctx.io.out;
  const name = index.sessionName;
  // One line each: a `\n` in the name, id, path or cwd is shown, not obeyed.
  ctx.io.line(
    c.bold(`${oneLineField(String(name ?? "(unnamed)"))} ${c.dim(oneLineField(session.header.id))}`),
  );
  const cwd = session.header.cwd ? ` · ${String(session.header.cwd)}` : "";
  ctx.io.line(c.dim(oneLineField(`${session.path}${cwd}`)));
  let previous: string | null = null;
  for (const entry of entries) {
    const note =
      all && previous !== null && entry.parentId !== previous
        ? `↳ branch from ${oneLineField(String(entry.parentId ?? "(root)"))}`
        : undefined;
    const block = transcriptBlock(c, entry as Record<string, unknown>, {
      full: options.full === true,
      label: index.getLabel(entry.id),
      showIds: all,
      ...(note ? { branchNote: note } : {}),
    });
    previous = entry.id;
    if (block === undefined) continue;
    ctx.io.line();
    ctx.io.line(block);
  }
  return 0;
};
