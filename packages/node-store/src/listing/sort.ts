/**
 * The order of a listing's results: `modified` descending, then pi's candidate order; and the
 * collator pi's `localeCompare` uses, built once.
 */
import type { SessionInfo } from "./info.js";
import type { Listed } from "./finish-listing.js";

let defaultCollator: Intl.Collator | undefined;

/**
 * `localeCompare`'s order (the spec defines both by the same default collator), from one
 * collator for the process instead of one per comparison (decision 031).
 */
export function collator(): Intl.Collator {
  defaultCollator ??= new Intl.Collator();
  return defaultCollator;
}

/**
 * Sorts the listed sessions: `modified` descending, then `tieBreak` (pi's candidate order),
 * then candidate order. A hinted order (close to the result, so sorting it is nearly free) is
 * used only when every time is a number: the comparison is then a total order, and the result
 * does not depend on the order it starts from.
 */
export function sortListed(listed: Listed, tieBreak?: (a: number, b: number) => number): SessionInfo[] {
  const { results } = listed;
  let order = listed.order;
  const t = new Float64Array(results.length);
  let nan = false;
  for (const i of order) {
    const v = (results[i] as SessionInfo).modified.getTime();
    if (Number.isNaN(v)) nan = true;
    t[i] = v;
  }
  if (nan && listed.hinted) order = order.slice().sort((a, b) => a - b);
  // The hinted order is usually the result already: times strictly descending need no sort.
  let sorted = !nan;
  for (let k = 1; sorted && k < order.length; k++) {
    sorted = (t[order[k - 1] as number] as number) > (t[order[k] as number] as number);
  }
  if (!sorted) {
    order.sort(
      tieBreak
        ? (a, b) => (t[b] as number) - (t[a] as number) || tieBreak(a, b) || a - b
        : (a, b) => (t[b] as number) - (t[a] as number) || a - b,
    );
  }
  const out = new Array<SessionInfo>(order.length);
  for (let k = 0; k < order.length; k++) out[k] = results[order[k] as number] as SessionInfo;
  return out;
}

export function sortInfos(infos: SessionInfo[]): SessionInfo[] {
  // Stable, like pi's sort; the times are read once per info, not once per comparison.
  const keyed = infos.map((info, i) => ({ info, t: info.modified.getTime(), i }));
  keyed.sort((a, b) => b.t - a.t || a.i - b.i);
  for (let i = 0; i < keyed.length; i++) infos[i] = (keyed[i] as { info: SessionInfo }).info;
  return infos;
}
