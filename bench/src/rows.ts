/**
 * The table of the benchmark: a row per scenario (our cell, the ceiling's, the peer's, the
 * ratios, the target and the verdict), cells made from workers' samples (time, throughput,
 * peak RSS), and the printed table. Used by the runner (`run.ts`) and the sdk rows (`sdk.ts`).
 */
import { type ChildOutcome, type Summary, summarize } from "./measure.js";

export const MB = 1_000_000;

/** A measured cell: summary of samples, or why there is no number. */
export type Cell =
  | { s: Summary; samples: number[]; display: string; extra?: Record<string, unknown> }
  | { na: string };

export interface Row {
  id: string;
  /** What is shown in the ours/ceiling/peer cells. */
  unit: string;
  ours: Cell;
  ceiling: Cell;
  peer: Cell;
  ratioCeiling?: number;
  ratioPeer?: number;
  target: string;
  verdict: "met" | "missed" | "n/a" | "smoke";
  notes: string[];
}

export const isNum = (c: Cell): c is Extract<Cell, { s: Summary }> => "s" in c;

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return "?";
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A cell from worker samples in ms, displayed as ms. */
export function msCell(o: ChildOutcome, samples?: number[]): Cell {
  if (!o.result.ok) return { na: o.result.error ?? "failed" };
  const xs = samples ?? o.result.samples ?? [];
  const s = summarize(xs);
  const spread = xs.length > 1 ? ` [${fmt(s.min)}–${fmt(s.max)}]` : "";
  return {
    s,
    samples: xs,
    display: `${fmt(s.median, s.median < 10 ? 1 : 0)} ms${spread}`,
    extra: o.result.extra,
  };
}

/** A cell from ms samples shown as throughput (`amount` per second). */
export function rateCell(o: ChildOutcome, amount: number, unit: string, scale = 1): Cell {
  if (!o.result.ok) return { na: o.result.error ?? "failed" };
  const xs = o.result.samples ?? [];
  const s = summarize(xs);
  const rate = (ms: number) => (amount / scale / ms) * 1000;
  const spread = xs.length > 1 ? ` [${fmt(rate(s.max))}–${fmt(rate(s.min))}]` : "";
  return { s, samples: xs, display: `${fmt(rate(s.median))} ${unit}${spread}`, extra: o.result.extra };
}

export function merge(outcomes: ChildOutcome[]): ChildOutcome {
  const failed = outcomes.find((o) => !o.result.ok);
  if (failed) return failed;
  const first = outcomes[0] as ChildOutcome;
  return {
    ...first,
    result: { ok: true, samples: outcomes.flatMap((o) => o.result.samples ?? []), extra: first.result.extra },
  };
}

/** A child's peak RSS in bytes: the kernel's number (`/usr/bin/time`), else Node's; NaN if neither. */
export function peakRssBytes(o: ChildOutcome): number {
  return o.peakRss ?? (o.result.extra?.maxRssBytes as number | undefined) ?? Number.NaN;
}

/** A cell of the children's peak RSS in MB (the kernel's number, else Node's), with their median time. */
export function rssCell(outs: ChildOutcome[]): Cell {
  const bad = outs.find((o) => !o.result.ok);
  if (bad) return { na: bad.result.error ?? "failed" };
  const rss = outs.map((o) => peakRssBytes(o) / MB);
  if (rss.some((x) => Number.isNaN(x))) return { na: "peak RSS unavailable" };
  const s = summarize(rss);
  const ms = summarize(outs.flatMap((o) => o.result.samples ?? []));
  const spread = rss.length > 1 ? ` [${fmt(s.min)}–${fmt(s.max)}]` : "";
  return {
    s,
    samples: rss,
    display: `${fmt(s.median)} MB${spread}, ${fmt(ms.median / 1000, 1)} s`,
    extra: outs[0]?.result.extra,
  };
}

export function naRow(id: string, why: string, target: string): Row {
  return {
    id,
    unit: "",
    ours: { na: why },
    ceiling: { na: why },
    peer: { na: why },
    target,
    verdict: "n/a",
    notes: [],
  };
}

function cellText(c: Cell): string {
  return isNum(c) ? c.display : c.na;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function printTable(rows: Row[], smoke: boolean): void {
  const head = ["scenario", "ours", "ceiling", "peer", "ours/ceil", "ours/peer", "target", "verdict"];
  const body = rows.map((r) => [
    r.id,
    truncate(cellText(r.ours), 48),
    truncate(cellText(r.ceiling), 40),
    truncate(cellText(r.peer), 40),
    r.ratioCeiling !== undefined ? `${fmt(r.ratioCeiling, 2)}×` : "–",
    r.ratioPeer !== undefined ? `${fmt(r.ratioPeer, 2)}×` : "–",
    r.target,
    smoke && r.verdict !== "n/a" ? "smoke" : r.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  const out = [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)];
  process.stdout.write(`${out.join("\n")}\n`);
}
