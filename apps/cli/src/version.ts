/**
 * The CLI's version. The bundle script defines `__PI_SESSION_VERSION__` from package.json; the
 * unbundled build (`lib/`) falls back to reading package.json next to it.
 */
import { createRequire } from "node:module";

declare const __PI_SESSION_VERSION__: string | undefined;

function readVersion(): string {
  if (typeof __PI_SESSION_VERSION__ === "string") return __PI_SESSION_VERSION__;
  const require = createRequire(import.meta.url);
  return (require("../package.json") as { version: string }).version;
}

export const VERSION: string = readVersion();
