/**
 * A Content-Security-Policy that allows nothing but what a page names: its script, its style,
 * `data:` images and, if given, where it may connect; Trusted Types for none, so no session
 * text can become markup even by mistake. Use it for every page that shows session content
 * (the exported page's meta tag, the web app's headers).
 */

export interface PolicySources {
  /** `script-src`, e.g. `'self'` or `'sha256-…'`. */
  script: string;
  /** `style-src`. */
  style: string;
  /** `connect-src` (default `'none'`). */
  connect?: string;
  /** Add `frame-ancestors 'none'` (only a header can carry it; a meta tag ignores it). */
  frameAncestors?: boolean;
}

export function contentSecurityPolicy(sources: PolicySources): string {
  return [
    "default-src 'none'",
    `script-src ${sources.script}`,
    `style-src ${sources.style}`,
    "img-src data:",
    `connect-src ${sources.connect ?? "'none'"}`,
    "font-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    ...(sources.frameAncestors ? ["frame-ancestors 'none'"] : []),
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
}
