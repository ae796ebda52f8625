// A load test of `pi-session serve`, run by hand (not in CI):
//
//   node apps/web/scripts/load-test.mjs --root <sessions root> [--clients 20] [--seconds 60] [--cache <dir>] [--typing human|burst] [--page new|old] [--bin <pi-session.cjs>] [--profile <dir>]
//
// Starts the built CLI's `serve` on loopback (XDG_CACHE_HOME=<cache>, so a session database
// built there before is reused; the first sync of a cold store is not measured), then runs
// `--clients` concurrent clients for `--seconds`, each doing what a person browsing does: the
// list, a session (whole, then its growth check), search as you type, usage charts, an export.
// Search as you type is what the app does (`--typing human`, the default): a keystroke every
// 80-250 ms, a request (newest first) 120 ms after the last keystroke from 3 characters on
// (not while the last word has 1-2 letters or digits: the page waits for a third or Enter),
// the request before it aborted by the next keystroke (counted as superseded, not as an error; the latencies are those of answers).
// `--page old` types as the page of decision 124 did (for a build from before, with `--bin`):
// ranked, 1-2 characters searched too, 350 ms after their keystroke.
// `--typing burst` is the older, harsher model: a query per prefix (3, 5 characters, the
// whole), each sent as soon as the one before it is answered. Prints p50/p90/p99/max per kind and overall, errors, the
// server's RSS (peak and at the end) and the load average. Stops by itself.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg, cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    root: { type: "string" },
    clients: { type: "string", default: "20" },
    seconds: { type: "string", default: "60" },
    cache: { type: "string" },
    seed: { type: "string", default: "7" },
    typing: { type: "string", default: "human" },
    page: { type: "string", default: "new" },
    // Another build of the CLI to serve with (say, main's, to compare in the same conditions).
    bin: { type: "string" },
    // A CPU profile of the server (node --cpu-prof), written into this directory when it stops.
    profile: { type: "string" },
    // Print the N slowest answers: when each was asked and what it was.
    slowest: { type: "string" },
    // The page's wait after a keystroke before it asks (ms); to compare with what the page does.
    debounce: { type: "string", default: "120" },
  },
});
if (!values.root) {
  console.error("usage: load-test.mjs --root <sessions root> [--clients 20] [--seconds 60] [--cache <dir>]");
  process.exit(2);
}
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const bin = values.bin ?? fileURLToPath(new URL("../../cli/dist/pi-session.cjs", import.meta.url));

let seed = Number(values.seed) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(random() * xs.length)];

const profile = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [];
const child = spawn(process.execPath, [...profile, bin, "serve", "--session-dir", values.root], {
  env: { ...process.env, ...(values.cache ? { XDG_CACHE_HOME: values.cache } : {}), NO_COLOR: "1" },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise((resolve, reject) => {
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
    const nl = out.indexOf("\n");
    if (nl >= 0) resolve(out.slice(0, nl));
  });
  child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
});
const origin = url.slice(0, url.indexOf("/#token="));
// The token, as the page sends it.
const auth = { authorization: `Bearer ${url.slice(url.indexOf("/#token=") + "/#token=".length)}` };

/** The server's CPU time so far (user + system, ms), from /proc. */
function cpuMs() {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function rssKb() {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const samples = new Map();
// The slowest answers, with when they were asked (s after the start): where the p99 comes from.
const slowest = [];
let t0 = performance.now();
let errors = 0;
const errorKinds = new Map();
let superseded = 0;
async function get(kind, path, read = "json", signal) {
  const start = performance.now();
  try {
    const res = await fetch(origin + path, { headers: auth, ...(signal ? { signal } : {}) });
    const body = read === "json" ? await res.json() : await res.arrayBuffer();
    const ms = performance.now() - start;
    if (!res.ok) throw new Error(`${res.status}`);
    if (!samples.has(kind)) samples.set(kind, []);
    samples.get(kind).push(ms);
    slowest.push({ at: (start - t0) / 1000, ms, path });
    if (slowest.length > 400) slowest.sort((a, b) => b.ms - a.ms).splice(40);
    return body;
  } catch (error) {
    if (signal?.aborted) {
      superseded++;
      return undefined;
    }
    errors++;
    const key = `${kind}: ${error.message}`;
    errorKinds.set(key, (errorKinds.get(key) ?? 0) + 1);
    return undefined;
  }
}

const list = await get("list", "/api/sessions");
const keys = list.sessions.map((s) => s.key);
samples.clear();
// Queries drawn from words of the generated sessions, one or two words, now and then a phrase
// or an exclusion: varied enough that the server's answer cache rarely has them.
const WORDS = (
  "parse cache directory worker thread compaction buffer stream lock readFile async await export " +
  "interface session entry parent tree branch leaf summary context model token append offset " +
  "index path cwd list stat size count node process string json line byte error warning fix"
).split(" ");
function query() {
  const r = random();
  const a = pick(WORDS);
  const b = pick(WORDS);
  if (r < 0.4) return a;
  if (r < 0.8) return `${a} ${b}`;
  if (r < 0.9) return `"${a} ${b}"`;
  return `${a} -${b}`;
}

const deadline = Date.now() + SECONDS * 1000;
let peakRss = rssKb();
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, rssKb());
}, 500);

const oldPage = values.page === "old";
const DEBOUNCE = Number(values.debounce);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Types `q` as the app's search box sends it (see the header); resolves with the last answer. */
// The page's rule (client/search-view.ts `endsInShortPrefix`): a last word of 1-2 letters or
// digits still being typed waits for a third (the last keystroke searches: Enter).
function endsInShortPrefix(text) {
  const last = text.trimEnd().split(/\s+/).pop() ?? "";
  if (last.endsWith('"')) return false;
  return /^[-"(]*[A-Za-z0-9]{1,2}$/.test(last);
}

async function typeQuery(q) {
  let inFlight;
  let timer;
  const send = () => {
    const controller = new AbortController();
    const typed = q.slice(0, sent);
    const order = oldPage ? "" : "&order=newest";
    const request = get(
      "search",
      `/api/search?q=${encodeURIComponent(typed)}${order}`,
      "json",
      controller.signal,
    );
    inFlight = { controller, request };
  };
  let sent = 0;
  for (let i = 1; i < q.length; i++) {
    inFlight?.controller.abort();
    clearTimeout(timer);
    sent = i;
    const typed = q.slice(0, i).trim();
    if (oldPage ? typed !== "" : typed.length >= 3 && !endsInShortPrefix(typed))
      timer = setTimeout(send, typed.length < 3 ? 350 : DEBOUNCE);
    await sleep(80 + random() * 170);
  }
  // The last keystroke: its request 120 ms later, and its answer awaited.
  inFlight?.controller.abort();
  clearTimeout(timer);
  sent = q.length;
  const typedAt = performance.now();
  await sleep(DEBOUNCE);
  send();
  const answer = await inFlight.request;
  // What the person waits: from the last keystroke to its answer, the page's wait included.
  if (answer !== undefined) {
    if (!samples.has("typed-to-answer")) samples.set("typed-to-answer", []);
    samples.get("typed-to-answer").push(performance.now() - typedAt);
  }
}

async function client() {
  while (Date.now() < deadline) {
    const r = random();
    if (r < 0.15) await get("list", "/api/sessions");
    else if (r < 0.5) {
      const key = pick(keys);
      const s = await get("session", `/api/sessions/${encodeURIComponent(key)}`);
      const last = s?.entries?.at(-1)?.id;
      if (last)
        await get(
          "session-growth",
          `/api/sessions/${encodeURIComponent(key)}?after=${s.entries.length}&last=${encodeURIComponent(last)}`,
        );
    } else if (r < 0.85) {
      const q = query();
      if (values.typing === "burst") {
        // A query per growing prefix of one word, then the whole query.
        for (const n of [Math.min(3, q.length), Math.min(5, q.length), q.length])
          await get("search", `/api/search?q=${encodeURIComponent(q.slice(0, n))}`);
      } else await typeQuery(q);
    } else if (r < 0.93)
      await get(
        "usage",
        `/api/usage?period=${pick(["day", "week", "month"])}&split=${pick(["model", "project"])}`,
      );
    else
      await get(
        "export",
        `/api/sessions/${encodeURIComponent(pick(keys))}/export?format=${pick(["md", "json"])}`,
        "bytes",
      );
  }
}

const started = performance.now();
t0 = started;
slowest.length = 0;
const cpuStart = cpuMs();
await Promise.all(Array.from({ length: CLIENTS }, client));
const elapsed = (performance.now() - started) / 1000;
clearInterval(rssTimer);
const cpuUsed = cpuMs() - cpuStart;
const endRss = rssKb();
peakRss = Math.max(peakRss, endRss);

const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const row = (name, xs) => {
  xs.sort((a, b) => a - b);
  const f = (v) => (v === undefined ? "-" : v.toFixed(1));
  return `${name.padEnd(15)} ${String(xs.length).padStart(7)} ${f(q(xs, 50)).padStart(8)} ${f(q(xs, 90)).padStart(8)} ${f(q(xs, 99)).padStart(8)} ${f(xs.at(-1)).padStart(9)}`;
};
const all = [...samples].flatMap(([kind, xs]) => (kind === "typed-to-answer" ? [] : xs));
const info = await fetch(`${origin}/api/info`, { headers: auth })
  .then((r) => r.json())
  .catch(() => ({}));
console.log(
  `pi-session serve load test: ${CLIENTS} clients, ${elapsed.toFixed(1)} s, ${keys.length} sessions, root ${values.root}`,
);
console.log(
  `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(
  `${"kind".padEnd(15)} ${"requests".padStart(7)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(9)}`,
);
for (const [kind, xs] of samples) console.log(row(kind, xs));
console.log(row("all", all));
console.log(
  `${(all.length / elapsed).toFixed(1)} requests/s; errors: ${errors}${errorKinds.size ? ` (${[...errorKinds].map(([k, n]) => `${k} x${n}`).join(", ")})` : ""}`,
);
if (superseded > 0 || info.search)
  console.log(
    `search: ${superseded} requests superseded by the next keystroke (aborted); server: ${JSON.stringify(info.search ?? {})}`,
  );
console.log(
  `server CPU: ${(cpuUsed / 1000).toFixed(1)} s (${(cpuUsed / elapsed / 10).toFixed(0)}% of a core), ${(cpuUsed / Math.max(1, all.length)).toFixed(1)} ms per request`,
);
console.log(
  `server RSS: peak ${(peakRss / 1024).toFixed(0)} MiB, at the end ${(endRss / 1024).toFixed(0)} MiB`,
);
if (values.slowest)
  for (const s of slowest.sort((a, b) => b.ms - a.ms).slice(0, Number(values.slowest)))
    console.log(`slow: at ${s.at.toFixed(1)} s, ${s.ms.toFixed(0)} ms, ${s.path}`);
child.kill("SIGINT");
await new Promise((r) => child.on("exit", r));
