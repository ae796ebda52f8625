/**
 * The index worker: reads the session files it is given, whole and in order, into the rows
 * of the session database, and sends them to the thread that writes the database (see
 * `read-ahead.ts`), which has the SQLite work to do meanwhile. It writes nothing itself.
 *
 * It runs ahead by at most {@link ReadAheadData.limitKiB} of row text the writer has not taken
 * yet (a shared counter the writer moves on), so memory stays bounded however far behind the
 * writer is.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type RowSink, readWhole } from "./read-file.js";
import {
  type ReadAheadData,
  type ReadAheadMessage,
  SENT,
  TAKEN,
  WAITING,
  rowsKiB,
} from "./read-ahead-protocol.js";

function run(data: ReadAheadData): void {
  const control = new Int32Array(data.control);
  const send = (message: ReadAheadMessage) => data.port.postMessage(message);
  data.files.forEach((f, file) => {
    const sink: RowSink = {
      add(rows) {
        const kib = rowsKiB(rows);
        send({ file, kind: "rows", rows: [...rows], kib });
        Atomics.add(control, SENT, kib);
        // Wait while the writer holds more than the limit of what was sent.
        for (;;) {
          const taken = Atomics.load(control, TAKEN);
          if (Atomics.load(control, SENT) - taken <= data.limitKiB) break;
          Atomics.store(control, WAITING, 1);
          Atomics.wait(control, TAKEN, taken, 1000);
          Atomics.store(control, WAITING, 0);
        }
      },
      setBranch(changes) {
        send({ file, kind: "branch", changes: [...changes] });
      },
      addFacets(facets) {
        send({
          file,
          kind: "facets",
          tools: [...facets.tools],
          models: [...facets.models],
          files: [...facets.files],
        });
      },
      links() {
        // Only an append reads what is stored; the worker reads files whole.
        throw new Error("index worker: no stored links");
      },
      usageKeys() {
        throw new Error("index worker: no stored usage");
      },
    };
    try {
      send({ file, kind: "done", read: readWhole(f.path, f.size, f.mtimeMs, sink) });
    } catch (error) {
      const e = error as { name?: unknown; message?: unknown; code?: unknown; syscall?: unknown };
      send({
        file,
        kind: "error",
        error: {
          name: String(e.name ?? "Error"),
          message: String(e.message ?? error),
          ...(typeof e.code === "string" ? { code: e.code } : {}),
          ...(typeof e.syscall === "string" ? { syscall: e.syscall } : {}),
        },
      });
    }
  });
  data.port.close();
}

// This module is also imported by the thread that starts it (for the counters above), and so
// by any other worker that uses the database: only a read-ahead worker's data starts a run.
const data = workerData as Partial<ReadAheadData> | null;
if (parentPort && data?.control instanceof SharedArrayBuffer && Array.isArray(data.files))
  run(data as ReadAheadData);
