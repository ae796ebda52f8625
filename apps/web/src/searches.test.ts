/**
 * The server's search answers over a real store and database (searches on this thread, as
 * when the sources run): identical concurrent searches run once, a search given up before it
 * ran does not run, a search that one asker gave up still answers the others, answers are kept
 * until the store changes, and a bad query is an error for every asker. The store's queue is
 * held (as a sync holds it) so that the searches are asked while none can run yet.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistant, makeStore, PLANTED, type TestStore } from "../test/store.js";
import { SearchPool } from "./search-pool.js";
import { SearchAnswers } from "./searches.js";
import { StoreView } from "./store-view.js";

const JOB = { query: `"${PLANTED}"`, options: { limit: 20 } };

describe("search answers", () => {
  let store: TestStore;
  let view: StoreView;
  let pool: SearchPool;
  let answers: SearchAnswers;

  beforeAll(async () => {
    store = makeStore(6);
    view = await StoreView.open({ root: store.root, persistent: false });
    // The server answers searches once the first build has ended (its generation then holds).
    await view.ready;
    pool = SearchPool.start(view);
    answers = new SearchAnswers({
      run: (job, signal) => pool.search(job, signal),
      generation: () => view.generation,
      format: (job, result) =>
        JSON.stringify({ query: job.query, paths: result.sessions.map((s) => s.path) }),
    });
  });

  afterAll(() => {
    pool?.close();
    view?.close();
    store?.cleanup();
  });

  /** Holds the store's queue until the returned function is called. */
  function hold(): () => void {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    void view.exclusive(() => held);
    return release;
  }

  const counted = () => ({ ...answers.counters });

  it("searches on this thread when no search thread is built next to the sources", () => {
    expect(pool.size).toBe(0);
  });

  it("runs identical concurrent searches once, and keeps the answer until the store changes", async () => {
    const before = counted();
    const release = hold();
    const asked = Array.from({ length: 8 }, () => answers.answer(JOB));
    release();
    const texts = await Promise.all(asked);
    expect(new Set(texts).size).toBe(1);
    expect(JSON.parse(texts[0] as string).paths).toContain(store.paths.planted);
    const after = counted();
    expect(after.ran - before.ran).toBe(1);
    expect(after.shared - before.shared).toBe(7);
    // Asked again: kept, not run.
    expect(await answers.answer(JOB)).toBe(texts[0]);
    expect(counted().ran - before.ran).toBe(1);
    expect(counted().kept - before.kept).toBe(1);
    // The store changes: the next asking runs again.
    store.append(store.paths.planted, assistant("zz-new-1", store.entries.planted, `again ${PLANTED}`, 50));
    const generation = view.generation;
    await view.refresh();
    expect(view.generation).toBeGreaterThan(generation);
    await answers.answer(JOB);
    expect(counted().ran - before.ran).toBe(2);
  });

  it("does not run a search given up before it ran; a new asking runs it", async () => {
    const job = { query: "marmalade", options: { limit: 5 } };
    const before = counted();
    const release = hold();
    const gaveUp = new AbortController();
    const first = answers.answer(job, gaveUp.signal);
    gaveUp.abort();
    await expect(first).rejects.toMatchObject({ name: "AbortError" });
    release();
    const text = await answers.answer(job);
    expect(JSON.parse(text).paths).toContain(store.paths.planted);
    const after = counted();
    expect(after.dropped - before.dropped).toBe(1);
    expect(after.ran - before.ran).toBe(1);
  });

  it("answers the others when one of those sharing a search gives up", async () => {
    const job = { query: "quantum", options: { limit: 7 } };
    const before = counted();
    const release = hold();
    const gaveUp = new AbortController();
    const leaving = answers.answer(job, gaveUp.signal);
    const staying = answers.answer(job);
    gaveUp.abort();
    await expect(leaving).rejects.toMatchObject({ name: "AbortError" });
    release();
    expect(JSON.parse(await staying).paths).toContain(store.paths.planted);
    expect(counted().ran - before.ran).toBe(1);
    expect(counted().dropped - before.dropped).toBe(0);
  });

  it("a request already given up asks nothing", async () => {
    const before = counted();
    const gaveUp = new AbortController();
    gaveUp.abort();
    await expect(answers.answer({ query: "zebra", options: {} }, gaveUp.signal)).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(counted()).toEqual(before);
  });

  it("a bad query is an error for every asker, and is not kept", async () => {
    const job = { query: "re:(", options: {} };
    const release = hold();
    const asked = [answers.answer(job), answers.answer(job)];
    release();
    for (const a of asked) await expect(a).rejects.toMatchObject({ name: "QuerySyntaxError" });
    await expect(answers.answer(job)).rejects.toMatchObject({ name: "QuerySyntaxError" });
  });
});
