/**
 * The listing worker (a `worker_threads` script, built to `dist/listing/list-worker.js`): receives one
 * file task at a time per message and answers with that file's listing result. Several tasks
 * run at once (their reads overlap); the main thread keeps directory walking, stat and the
 * cache. See `pool.ts`.
 */
import { parentPort } from "node:worker_threads";
import { type FileCounters, loadFile } from "./load-file.js";
import type { PoolReply, PoolRequest } from "./pool.js";

const port = parentPort;
if (port) {
  port.on("message", (req: PoolRequest) => {
    const counters: FileCounters = { bytesRead: 0, filesParsed: 0, filesResumed: 0 };
    const opts: Parameters<typeof loadFile>[4] = {};
    if (req.texts) opts.texts = req.texts;
    loadFile(req.path, req.stat, req.cached, counters, opts).then(
      (result) => {
        const reply: PoolReply = { id: req.id, ok: true, info: result.info, counters };
        if (result.cache) reply.cache = result.cache;
        // The text usually equals the info's: do not copy it twice.
        if (result.text !== undefined && result.text !== result.info?.allMessagesText)
          reply.text = result.text;
        else if (result.text !== undefined) reply.sameText = true;
        port.postMessage(reply);
      },
      (err: unknown) => {
        const reply: PoolReply = { id: req.id, ok: false, error: String(err), counters };
        port.postMessage(reply);
      },
    );
  });
}
