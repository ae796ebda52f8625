/**
 * Loads our layers (and, with `--peer`, pi itself) at run time, so every scenario can say
 * "n/a" when a layer is not built yet instead of failing the whole benchmark.
 *
 * The layers are imported by package name through dynamic `import()`; the few functions the
 * benchmark calls are described here structurally and checked before use. The peer
 * (`@mariozechner/pi-coding-agent@0.73.1`) is imported only from `bench/.peer/`.
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

export async function loadLayers(): Promise<Layers> {
  const out: Layers = { missing: {} };
  for (const [key, spec] of Object.entries(NAMES) as [keyof typeof NAMES, string][]) {
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
// Peer

const HERE = dirname(fileURLToPath(import.meta.url));
export const PEER_DIR = join(HERE, "..", ".peer");
export const PEER_PKG = "@mariozechner/pi-coding-agent";
export const PEER_VERSION = "0.73.1";

export function peerEntry(): string {
  return join(PEER_DIR, "node_modules", PEER_PKG, "dist", "index.js");
}

export function peerCli(): string {
  return join(PEER_DIR, "node_modules", PEER_PKG, "dist", "cli.js");
}

export function peerInstalled(): boolean {
  return existsSync(peerEntry());
}

export async function loadPeer(): Promise<Mod> {
  return (await import(pathToFileURL(peerEntry()).href)) as Mod;
}
