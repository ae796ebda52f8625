/**
 * Reading files ahead in a worker thread (`index-worker.ts`) while this thread writes the
 * database: for a large build the parsing, documents and index texts (about 40% of the work)
 * run beside the SQLite inserts instead of before them. Files come back in the order given;
 * {@link ReadAhead.replay} plays one file's rows onto a writer.
 *
 * Use {@link ReadAhead.start}; it gives undefined where no worker can be had (the worker file
 * is not built, e.g. tests on the sources), and the caller reads in-process.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { MessagePort, Worker } from "node:worker_threads";
import type { StoreFile } from "@pi-session/node-store";
import { type ReadAheadData, type ReadAheadMessage, TAKEN, WAITING } from "./read-ahead-protocol.js";
import type { ReadResult, RowSink } from "./read-file.js";

/** Row text the worker may hold ready beyond what was written (KiB). */
const LIMIT_KIB = 16 * 1024;

/** The worker stopped (crashed, or was stopped): read the rest in-process. */
export class ReadAheadLostError extends Error {
  override readonly name = "ReadAheadLostError";
}

function workerFile(): string | undefined {
  const url = new URL("./index-worker.js", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  const path = fileURLToPath(url);
  return existsSync(path) ? path : undefined;
}

export class ReadAhead {
  private readonly queue: ReadAheadMessage[] = [];
  private waiting: { resolve: () => void } | undefined;
  private lost: Error | undefined;
  /** The worker sent its last message. */
  private finished = false;
  /** Index (in the worker's list) of the next file to take. */
  private next = 0;
  private readonly control: Int32Array;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly order: Map<StoreFile, number>,
    shared: SharedArrayBuffer,
  ) {
    this.control = new Int32Array(shared);
    port.on("message", (m: ReadAheadMessage) => {
      this.queue.push(m);
      this.wake();
    });
    const stop = (error: Error) => {
      this.lost ??= error;
      this.wake();
    };
    // The port closes after the worker's last message; a failure stops it earlier.
    port.on("close", () => {
      this.finished = true;
      this.wake();
    });
    worker.on("error", (e) => stop(new ReadAheadLostError(`index worker failed: ${(e as Error).message}`)));
    worker.on("exit", (code) => {
      if (code !== 0) stop(new ReadAheadLostError(`index worker stopped (exit ${code})`));
    });
  }

  /** A worker reading `files` (whole, in this order), or undefined when none can be started. */
  static start(files: readonly StoreFile[]): ReadAhead | undefined {
    const script = workerFile();
    if (!script || files.length === 0) return undefined;
    // Taken when a worker starts: an up-to-date index (every warm search) never loads threads.
    const { MessageChannel, Worker } = process.getBuiltinModule("node:worker_threads");
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(12);
    const data: ReadAheadData = {
      files: files.map((f) => ({ path: f.path, size: f.size, mtimeMs: f.mtimeMs })),
      port: port2,
      control: shared,
      limitKiB: LIMIT_KIB,
    };
    let worker: Worker;
    try {
      worker = new Worker(script, { workerData: data, transferList: [port2] });
    } catch {
      port1.close();
      return undefined;
    }
    // The worker alone must not keep the process alive.
    worker.unref();
    return new ReadAhead(worker, port1, new Map(files.map((f, i) => [f, i])), shared);
  }

  /** Whether the worker reads `file` (and was not lost). */
  has(file: StoreFile): boolean {
    return this.lost === undefined && this.order.has(file) && !this.forgotten.has(file);
  }

  /** Files read here after all (their rows from the worker, if any, were taken already). */
  private readonly forgotten = new Set<StoreFile>();

  /** `file` is read here from now on (a batch it was in was undone). */
  forget(file: StoreFile): void {
    this.forgotten.add(file);
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve();
  }

  private async take(): Promise<ReadAheadMessage> {
    for (;;) {
      const m = this.queue.shift();
      if (m) return m;
      if (this.lost) throw this.lost;
      if (this.finished) throw new ReadAheadLostError("index worker: no more messages");
      await new Promise<void>((resolve) => {
        this.waiting = { resolve };
      });
    }
  }

  /** Takes the worker's messages up to those of `file` (files before it were read here instead). */
  private async seek(file: StoreFile): Promise<number> {
    const index = this.order.get(file);
    if (index === undefined || index < this.next) throw new Error(`index worker: ${file.path} is not ahead`);
    while (this.next < index) {
      const m = await this.take();
      if (m.kind === "rows") this.taken(m.kib);
      if ((m.kind === "done" || m.kind === "error") && m.file === this.next) this.next++;
    }
    return index;
  }

  private taken(kib: number): void {
    Atomics.add(this.control, TAKEN, kib);
    // A wake-up is a system call: only for a worker that waits.
    if (Atomics.load(this.control, WAITING) === 1) Atomics.notify(this.control, TAKEN);
  }

  /**
   * Plays the rows of `file` onto `sink` and returns what reading it found; rethrows what
   * reading it threw (an error with the same name, code and syscall).
   */
  async replay(file: StoreFile, sink: RowSink): Promise<ReadResult> {
    const index = await this.seek(file);
    for (;;) {
      const m = await this.take();
      if (m.file !== index)
        throw new Error(`index worker: message for file ${m.file} while reading ${index}`);
      switch (m.kind) {
        case "rows":
          sink.add(m.rows);
          this.taken(m.kib);
          break;
        case "branch":
          sink.setBranch(m.changes);
          break;
        case "facets":
          sink.addFacets({ tools: m.tools, models: m.models, files: m.files });
          break;
        case "done":
          this.next = index + 1;
          return m.read;
        case "error": {
          this.next = index + 1;
          const error = Object.assign(new Error(m.error.message), m.error);
          throw error;
        }
      }
    }
  }

  /** Drops the rows of `file` (another process indexed it). */
  async skip(file: StoreFile): Promise<void> {
    const index = await this.seek(file);
    for (;;) {
      const m = await this.take();
      if (m.kind === "rows") this.taken(m.kib);
      if (m.kind === "done" || m.kind === "error") {
        this.next = index + 1;
        return;
      }
    }
  }

  /** Stops the worker (whatever it still had to read). */
  async close(): Promise<void> {
    this.lost ??= new ReadAheadLostError("index worker closed");
    this.port.close();
    await this.worker.terminate();
  }
}
