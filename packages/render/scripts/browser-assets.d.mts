// Types of what TypeScript code (the bundles' tests) imports from browser-assets.mjs.

/** highlight.js's `highlightElement` in a minified bundle (never called; see browser-assets.mjs). */
export declare const HIGHLIGHT_ELEMENT: RegExp;
