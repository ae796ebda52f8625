/**
 * Loads our layers (and, with `--peer`, pi itself) at run time, so every scenario can say
 * "n/a" when a layer is not built yet instead of failing the whole benchmark.
 *
 * The layers are imported by package name through dynamic `import()`; the few functions the
 * benchmark calls are described here structurally and checked before use. The peer
 * (pi 1.6.0 on Node 22; pi 0.73.1 as an optional second peer) is imported only from `bench/.peer/`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type Mod = Record<string, unknown>;

/** The subset of a codec record the benchmark looks at. */
export interface Rec {
  kind: "json" | "raw";
  value?: Record<string, unknown>;
  line: number;
  offset: number;
}

export interface Layers {
  format?: Mod;
  schema?: Mod;
  migrate?: Mod;
  tree?: Mod;
  context?: Mod;
  store?: Mod;
  /** `@pi-session/sdk` (the drop-in SessionManager). */
  sdk?: Mod;
  /** `@pi-session/search` (the session database) and its pure `documents` entry. */
  search?: Mod;
  searchDocuments?: Mod;
  /** Why a layer is missing, by name. */
  missing: Record<string, string>;
}

const NAMES = {
  format: "@pi-session/format",
  schema: "@pi-session/format/schema",
  migrate: "@pi-session/migrate",
  tree: "@pi-session/tree",
  context: "@pi-session/context",
  store: "@pi-session/node-store",
  sdk: "@pi-session/sdk",
  search: "@pi-session/search",
  searchDocuments: "@pi-session/search/documents",
} as const;

async function tryImport(spec: string): Promise<Mod | string> {
  try {
    return (await import(spec)) as Mod;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    // A missing dist file of the layer itself means it is not built yet; say so briefly.
    const own = err.message?.includes(`/${spec.split("/")[1]}/dist/`) ?? false;
    if ((err.code === "ERR_MODULE_NOT_FOUND" && own) || err.code === "ERR_PACKAGE_PATH_NOT_EXPORTED")
      return "not built";
    return (err.message ?? String(e)).split("\n")[0] as string;
  }
}

/** Loads the layers (all of them, or only those named). */
export async function loadLayers(only?: readonly (keyof typeof NAMES)[]): Promise<Layers> {
  const out: Layers = { missing: {} };
  for (const [key, spec] of Object.entries(NAMES) as [keyof typeof NAMES, string][]) {
    if (only && !only.includes(key)) continue;
    const m = await tryImport(spec);
    if (typeof m === "string") out.missing[key] = m;
    else out[key] = m;
  }
  return out;
}

/** A named function of a module, or undefined. */
// biome-ignore lint/suspicious/noExplicitAny: adapters call into structurally-checked modules
export function fn(mod: Mod | undefined, name: string): ((...args: any[]) => any) | undefined {
  const f = mod?.[name];
  // biome-ignore lint/suspicious/noExplicitAny: see above
  return typeof f === "function" ? (f as (...args: any[]) => any) : undefined;
}

/** Counts diagnostics in whatever shape a validator returns (array, or `{diagnostics}`). */
export function countDiagnostics(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  if (result && typeof result === "object") {
    const d =
      (result as { diagnostics?: unknown; errors?: unknown }).diagnostics ??
      (result as { errors?: unknown }).errors;
    if (Array.isArray(d)) return d.length;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Peers and the Node 22 binary (installed on demand into the ignored `bench/.peer/`)

const HERE = dirname(fileURLToPath(import.meta.url));
export const PEER_DIR = join(HERE, "..", ".peer");

/** A pi release the benchmark measures against, installed into its own prefix under `.peer/`. */
export interface PeerSpec {
  key: PeerKey;
  pkg: string;
  version: string;
  /** `pi 1.6.0`: how tables and notes name it. */
  label: string;
  /** The module (inside the package) with `SessionManager` and `parseSessionEntries`. */
  sessionModule: string;
  /** The CLI script (inside the package), for `pi --version`. */
  cli: string;
  /** Which Node runs it: the bench's Node 22 binary, or the runner's own Node. */
  node: "22" | "runner";
}

export type PeerKey = "pi16" | "pi073";

export const PEERS: Record<PeerKey, PeerSpec> = {
  // The newest pi (Node >= 22.19): the peer of every row. Its session module is imported alone
  // (as the conformance suite does) so that pi's agent, TUI and providers do not weigh on its
  // startup or memory; `SessionManager` there is the class pi's index re-exports.
  pi16: {
    key: "pi16",
    pkg: "@earendil-works/pi-coding-agent",
    version: "1.6.0",
    label: "pi 1.6.0",
    sessionModule: "dist/core/session-manager.js",
    cli: "dist/bundle/cli.js",
    node: "22",
  },
  // The newest pi that runs on Node 20: an optional second peer (`--legacy-peer`).
  pi073: {
    key: "pi073",
    pkg: "@mariozechner/pi-coding-agent",
    version: "0.73.1",
    label: "pi 0.73.1",
    sessionModule: "dist/index.js",
    cli: "dist/cli.js",
    node: "runner",
  },
};

/** The primary peer. */
export const PEER = PEERS.pi16;

function peerRoot(spec: PeerSpec): string {
  return join(PEER_DIR, `${spec.key}-${spec.version}`);
}

/** The install prefix of a peer (`npm install --prefix`). */
export function peerPrefix(spec: PeerSpec): string {
  return peerRoot(spec);
}

function peerPackageDir(spec: PeerSpec): string {
  return join(peerRoot(spec), "node_modules", ...spec.pkg.split("/"));
}

export function peerEntry(spec: PeerSpec): string {
  return join(peerPackageDir(spec), spec.sessionModule);
}

export function peerCli(spec: PeerSpec): string {
  return join(peerPackageDir(spec), spec.cli);
}

export function peerInstalled(spec: PeerSpec): boolean {
  return existsSync(peerEntry(spec));
}

export async function loadPeer(key: PeerKey = "pi16"): Promise<Mod> {
  return (await import(pathToFileURL(peerEntry(PEERS[key])).href)) as Mod;
}

/**
 * pi 1.6.0's session picker filter (`filterAndSortSessions`: what `/resume` runs over
 * `listAll`'s results as the user types), from its own module next to the session module.
 */
export async function loadPeerFilter(): Promise<Mod> {
  const file = join(
    dirname(peerEntry(PEERS.pi16)),
    "..",
    "modes",
    "interactive",
    "components",
    "session-selector-search.js",
  );
  return (await import(pathToFileURL(file).href)) as Mod;
}

/**
 * Node 22 for the peer and for our second column: the repository's pinned Node 22
 * (`scripts/node22.mjs` installs it into the ignored `.tools/`; its version is also there).
 */
export const NODE22 = {
  pkg: `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`,
  version: "22.23.5",
  prefix: join(HERE, "..", "..", ".tools", "node-22.23.5"),
} as const;

/** Path of the Node 22 binary (whether or not it is installed). */
export function node22Path(): string {
  const bin = process.platform === "win32" ? "node.exe" : join("bin", "node");
  return join(NODE22.prefix, "node_modules", NODE22.pkg, bin);
}

export function node22Installed(): boolean {
  return existsSync(node22Path());
}
