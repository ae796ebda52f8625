/**
 * TLS as libpq means it, for pg: `sslmode=require` encrypts without checking the server's
 * certificate (or checks it against `sslrootcert` when one is named, as `verify-ca`),
 * `verify-ca` checks the chain, `verify-full` the chain and the host name, `disable` turns TLS
 * off. pg 8 on its own treats `prefer`, `require` and `verify-ca` as `verify-full` and prints a
 * warning on stderr; users of pi-session type libpq's URLs (`psql`'s, their provider's), so
 * they get libpq's meaning, in a URL and in `PGSSLMODE`/`PGSSLROOTCERT`.
 *
 * Use {@link poolTarget} to make pg's connection options from what the user gave.
 */
import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";

export interface PoolTarget {
  connectionString?: string;
  /** Set only when the environment asks for TLS (pg would read `PGSSLMODE` its own way). */
  ssl?: boolean | ConnectionOptions;
}

/** The URL with pg told to read `sslmode` as libpq does (when it names one). */
function libpqUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Not a URL pg can read either: its own error says so.
    return url;
  }
  const keys = [...u.searchParams.keys()].map((k) => k.toLowerCase());
  if (!keys.includes("sslmode") || keys.includes("uselibpqcompat")) return url;
  u.searchParams.set("uselibpqcompat", "true");
  return u.toString();
}

/** `PGSSLMODE` (and `PGSSLROOTCERT`) as libpq reads them; undefined: leave TLS to pg. */
function environmentSsl(env: Record<string, string | undefined>): boolean | ConnectionOptions | undefined {
  const mode = env.PGSSLMODE;
  if (mode === undefined || mode === "") return undefined;
  const rootCert = env.PGSSLROOTCERT;
  const ca = () => {
    if (rootCert === undefined || rootCert === "") return undefined;
    return readFileSync(rootCert, "utf8");
  };
  const anyHost = () => undefined;
  switch (mode) {
    case "disable":
      return false;
    case "allow":
    case "prefer":
      return { rejectUnauthorized: false };
    case "require": {
      const root = ca();
      return root === undefined ? { rejectUnauthorized: false } : { ca: root, checkServerIdentity: anyHost };
    }
    case "verify-ca": {
      const root = ca();
      if (root === undefined)
        throw new Error("PGSSLMODE=verify-ca needs the CA's certificate: set PGSSLROOTCERT to its file");
      return { ca: root, checkServerIdentity: anyHost };
    }
    case "verify-full": {
      const root = ca();
      return root === undefined ? {} : { ca: root };
    }
    default:
      throw new Error(
        `PGSSLMODE=${mode} is not one of disable, allow, prefer, require, verify-ca, verify-full`,
      );
  }
}

/** pg's connection target for a URL (libpq's `sslmode`), else for the `PG*` environment. */
export function poolTarget(url: string | undefined, env: Record<string, string | undefined>): PoolTarget {
  if (url !== undefined) return { connectionString: libpqUrl(url) };
  const ssl = environmentSsl(env);
  return ssl === undefined ? {} : { ssl };
}
