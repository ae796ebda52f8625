/**
 * The usage view: tokens or cost by day, week or month, stacked by model or by project, as
 * one SVG bar chart drawn here (no chart library: a stacked bar chart is a few rectangles),
 * with its legend and a table of every series' totals. The numbers are the server's, counted
 * once per fork lineage like `pi-session stats`; the totals row equals `stats --json`'s. The
 * time axis runs without a gap (a day without usage is an empty slot); a cost whose price is
 * unknown (a cost of 0 with tokens) is marked, never shown as $0.00; a project and a range of
 * days narrow it; a click on a bar lists that period's sessions.
 */
import type { TokenTotals as Totals } from "@pi-session/search/documents";
import type { PeriodSession, UsageChart } from "../src/usage.js";
import { getJson, onChange } from "./api.js";
import { formatCost, formatInt, formatTokens, h, oneLine, projectLabels, svg } from "./dom.js";
import { type View, replaceHash } from "./view.js";

/** A bar's session as the server sends it: the list row's key, title and project, and its share. */
type BarSession = Omit<PeriodSession, "path"> & { key: string; title: string; project: string };
type Chart = Omit<UsageChart, "sessionsByPeriod"> & { sessionsByPeriod: BarSession[][] };

/** A cost as shown: `?` when all of it is unpriced, `$1.23+` when part of it is. */
function costText(cost: number, unpricedTokens: number): string {
  if (unpricedTokens > 0 && cost === 0) return "?";
  return `${formatCost(cost)}${unpricedTokens > 0 ? "+" : ""}`;
}

/** Series drawn with their own colour; the rest are one "other" stack. */
const MAX_SERIES = 8;
const PALETTE = 9;

function segmented(
  label: string,
  choices: [string, string][],
  value: string,
  onPick: (v: string) => void,
): { el: HTMLElement; set(v: string): void } {
  const buttons = choices.map(([v, text]) =>
    h("button", { class: "seg", text, attrs: { type: "button", "data-value": v }, onClick: () => onPick(v) }),
  );
  const set = (v: string) => {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.value === v));
  };
  set(value);
  return {
    el: h("div", { class: "segmented", attrs: { role: "group", "aria-label": label } }, buttons),
    set,
  };
}

/** The smallest of 1, 2, 2.5, 5 times a power of ten at or above `n`: round axis ticks. */
function niceCeiling(n: number): number {
  if (n <= 0) return 0;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

export function usageView(params: URLSearchParams): View {
  const state = {
    period: params.get("period") ?? "day",
    split: params.get("split") ?? "model",
    metric: params.get("metric") ?? "cost",
    project: params.get("project") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
  };
  let labels = new Map<string, string>();
  const projectSelect = h("select", { class: "usage-project", attrs: { "aria-label": "Project" } });
  const fromInput = h("input", { class: "usage-from", attrs: { type: "date", "aria-label": "From" } });
  const toInput = h("input", { class: "usage-to", attrs: { type: "date", "aria-label": "To" } });
  fromInput.value = state.from;
  toInput.value = state.to;
  const drill = h("section", { class: "drill", attrs: { "aria-live": "polite" } });
  drill.hidden = true;
  const narrowed = () => {
    state.project = projectSelect.value;
    state.from = fromInput.value;
    state.to = toInput.value;
    void load();
  };
  projectSelect.addEventListener("change", narrowed);
  fromInput.addEventListener("change", narrowed);
  toInput.addEventListener("change", narrowed);
  const chartBox = h("div", { class: "chart" });
  const legend = h("ul", { class: "legend" });
  const table = h("table", { class: "usage-table" });
  const summary = h("p", { class: "status" });
  const periodPick = segmented(
    "Period",
    [
      ["day", "Day"],
      ["week", "Week"],
      ["month", "Month"],
    ],
    state.period,
    (v) => {
      state.period = v;
      periodPick.set(v);
      void load();
    },
  );
  const splitPick = segmented(
    "Split",
    [
      ["model", "By model"],
      ["project", "By project"],
    ],
    state.split,
    (v) => {
      state.split = v;
      splitPick.set(v);
      void load();
    },
  );
  const metricPick = segmented(
    "Measure",
    [
      ["cost", "Cost"],
      ["tokens", "Tokens"],
    ],
    state.metric,
    (v) => {
      state.metric = v;
      metricPick.set(v);
      if (chart) draw(chart);
    },
  );
  const el = h("section", { class: "view usage-view" }, [
    h("div", { class: "toolbar" }, [
      periodPick.el,
      splitPick.el,
      metricPick.el,
      projectSelect,
      h("label", { class: "range" }, ["From ", fromInput]),
      h("label", { class: "range" }, ["to ", toInput]),
    ]),
    summary,
    chartBox,
    drill,
    legend,
    table,
  ]);
  let chart: Chart | undefined;

  const labelOf = (key: string) =>
    state.split === "project" ? labels.get(key) || "(no project)" : key || "(unknown)";

  /** The sessions of the period at `p`, under the chart. */
  function showSessions(c: Chart, p: number): void {
    const period = c.periods[p] as string;
    const sessions = c.sessionsByPeriod[p] ?? [];
    drill.hidden = false;
    drill.dataset.period = period;
    drill.replaceChildren(
      h("h2", {
        text: `${period === "unknown" ? "Without a time" : period}: ${formatInt(sessions.length)} session${sessions.length === 1 ? "" : "s"}`,
      }),
      h(
        "ol",
        { class: "drill-list" },
        sessions.map((s) =>
          h("li", {}, [
            h("a", {
              attrs: { href: `#/s/${encodeURIComponent(s.key)}` },
              text: oneLine(s.title || "(no messages)", 120),
            }),
            h("span", { class: "project", text: labels.get(s.project) ?? s.project, title: s.project }),
            h("span", { class: "num", text: formatTokens(s.tokens) }),
            h("span", { class: "num", text: costText(s.cost, s.unpricedTokens) }),
          ]),
        ),
      ),
    );
  }

  function draw(c: Chart): void {
    const hashState = Object.fromEntries(Object.entries(state).filter(([, v]) => v !== ""));
    replaceHash(`#/usage?${new URLSearchParams(hashState).toString()}`);
    labels = projectLabels(c.projects);
    projectSelect.replaceChildren(
      h("option", { text: "All projects", attrs: { value: "" } }),
      ...c.projects.map((p) => h("option", { text: labels.get(p) ?? p, title: p, attrs: { value: p } })),
    );
    projectSelect.value = state.project;
    const cost = state.metric === "cost";
    const value = (s: Chart["series"][number]) => (cost ? s.cost : s.tokens);
    const shownSeries = c.series.slice(0, MAX_SERIES);
    const rest = c.series.slice(MAX_SERIES);
    const stacks = shownSeries.map((s, i) => ({
      key: labelOf(s.key),
      title: s.key,
      colour: i % PALETTE,
      values: value(s),
      unpriced: s.unpricedTokens,
    }));
    if (rest.length > 0)
      stacks.push({
        key: `${rest.length} more`,
        title: rest.map((s) => s.key).join("\n"),
        colour: PALETTE,
        values: c.periods.map((_, p) => rest.reduce((n, s) => n + (value(s)[p] ?? 0), 0)),
        unpriced: c.periods.map((_, p) => rest.reduce((n, s) => n + (s.unpricedTokens[p] ?? 0), 0)),
      });
    const unpricedAt = c.periods.map((_, p) => stacks.reduce((n, s) => n + (s.unpriced[p] ?? 0), 0));
    const sums = c.periods.map((_, p) => stacks.reduce((n, s) => n + (s.values[p] ?? 0), 0));
    const max = niceCeiling(Math.max(0, ...sums));
    const fmt = cost ? formatCost : formatTokens;

    const width = Math.max(320, chartBox.clientWidth || 900);
    const height = 280;
    const left = 64;
    const bottom = 36;
    const top = 12;
    const plotW = width - left - 12;
    const plotH = height - top - bottom;
    const n = Math.max(1, c.periods.length);
    const step = plotW / n;
    const bar = Math.max(2, Math.min(48, step * 0.72));
    const nodes: Node[] = [];
    const ticks = 4;
    for (let t = 0; t <= ticks; t++) {
      const y = top + plotH - (plotH * t) / ticks;
      nodes.push(svg("line", { class: "grid", x1: left, x2: width - 8, y1: y, y2: y }));
      const label = svg("text", { class: "axis", x: left - 6, y: y + 4, "text-anchor": "end" });
      label.textContent = fmt((max * t) / ticks);
      nodes.push(label);
    }
    const labelEvery = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotW / 70))));
    c.periods.forEach((period, p) => {
      const x = left + p * step + (step - bar) / 2;
      let y = top + plotH;
      const group = svg("g", {
        class: `bar${cost && (unpricedAt[p] ?? 0) > 0 ? " unpriced" : ""}`,
        "data-period": period,
        "data-total": String(sums[p] ?? 0),
        tabindex: 0,
        role: "button",
      });
      // The whole slot takes the click (an empty day too), so a thin bar is easy to hit.
      const slot = svg("rect", { class: "slot", x: left + p * step, y: top, width: step, height: plotH });
      const slotTip = svg("title");
      slotTip.textContent = `${period}: ${fmt(sums[p] ?? 0)}${cost && (unpricedAt[p] ?? 0) > 0 ? ` + unknown price of ${formatTokens(unpricedAt[p] ?? 0)} tokens` : ""}`;
      slot.append(slotTip);
      group.append(slot);
      group.addEventListener("click", () => showSessions(c, p));
      group.addEventListener("keydown", (event) => {
        if ((event as KeyboardEvent).key === "Enter") showSessions(c, p);
      });
      for (const s of stacks) {
        const v = s.values[p] ?? 0;
        if (v <= 0 || max <= 0) continue;
        const hgt = (v / max) * plotH;
        y -= hgt;
        const rect = svg("rect", {
          class: `series-${s.colour}`,
          x,
          y,
          width: bar,
          height: Math.max(0.5, hgt),
        });
        const tip = svg("title");
        tip.textContent = `${period} · ${s.title}: ${fmt(v)}`;
        rect.append(tip);
        group.append(rect);
      }
      // Tokens whose price is unknown: the cost bar is too low by it, and says so.
      if (cost && (unpricedAt[p] ?? 0) > 0) {
        const mark = svg("text", {
          class: "unpriced-mark",
          x: x + bar / 2,
          y: y - 4,
          "text-anchor": "middle",
        });
        mark.textContent = "?";
        group.append(mark);
      }
      nodes.push(group);
      if (p % labelEvery === 0) {
        const label = svg("text", {
          class: "axis",
          x: x + bar / 2,
          y: height - bottom + 16,
          "text-anchor": "middle",
        });
        label.textContent = period;
        nodes.push(label);
      }
    });
    const chartSvg = svg(
      "svg",
      {
        class: "bars",
        viewBox: `0 0 ${width} ${height}`,
        width,
        height,
        role: "img",
        "aria-label": `${state.metric} by ${state.period}`,
      },
      nodes,
    );
    chartBox.replaceChildren(
      c.periods.length === 0
        ? h("p", {
            class: "empty",
            text:
              state.project || state.from || state.to
                ? "No usage in this selection."
                : "No usage recorded in this store.",
          })
        : chartSvg,
    );
    legend.replaceChildren(
      ...stacks.map((s) =>
        h("li", { title: s.title }, [h("span", { class: `swatch series-${s.colour}` }), oneLine(s.key, 60)]),
      ),
    );
    const row = (key: string, t: Totals, cls = "") =>
      h("tr", { class: cls }, [
        h("td", { text: key, title: key }),
        h("td", { class: "num", text: formatInt(t.input) }),
        h("td", { class: "num", text: formatInt(t.output) }),
        h("td", { class: "num", text: formatInt(t.cacheRead) }),
        h("td", { class: "num", text: formatInt(t.cacheWrite) }),
        h("td", { class: "num", text: formatInt(t.totalTokens) }),
        h("td", {
          class: "num",
          text: t.unpricedTokens > 0 ? costText(t.cost, t.unpricedTokens) : `$${t.cost.toFixed(2)}`,
          title: t.unpricedTokens > 0 ? `${formatInt(t.unpricedTokens)} tokens have no price` : "",
        }),
      ]);
    const totalRow = row("total", c.totals, "total");
    totalRow.dataset.tokens = String(c.totals.totalTokens);
    totalRow.dataset.cost = String(c.totals.cost);
    totalRow.dataset.input = String(c.totals.input);
    totalRow.dataset.records = String(c.totals.records);
    table.replaceChildren(
      h("thead", {}, [
        h(
          "tr",
          {},
          ["", "input", "output", "cache read", "cache write", "tokens", "cost"].map((t, i) =>
            h("th", {
              class: i === 0 ? "" : "num",
              text: i === 0 ? (state.split === "model" ? "model" : "project") : t,
            }),
          ),
        ),
      ]),
      h("tbody", {}, [...c.series.map((s) => row(labelOf(s.key), s.totals)), totalRow]),
    );
    summary.textContent = `${formatInt(c.sessions)} sessions · ${formatInt(c.totals.records)} usage records${c.duplicatesSkipped > 0 ? ` (${formatInt(c.duplicatesSkipped)} more copied by forks, counted once)` : ""}${c.totals.zeroCostWithTokens > 0 ? ` · ${formatInt(c.totals.unpricedTokens)} tokens have no known price (? and + mark costs too low by it)` : ""}`;
    el.dataset.loaded = "true";
  }

  async function load(): Promise<void> {
    try {
      const q = new URLSearchParams({ period: state.period, split: state.split });
      if (state.project) q.set("project", state.project);
      if (state.from) q.set("from", state.from);
      if (state.to) q.set("to", state.to);
      chart = await getJson<Chart>(`/api/usage?${q}`);
      drill.hidden = true;
      draw(chart);
    } catch (error) {
      summary.textContent = `Cannot load usage: ${(error as Error).message}`;
    }
  }

  let timer = 0;
  const off = onChange(() => {
    clearTimeout(timer);
    timer = window.setTimeout(() => void load(), 300);
  });
  const onResize = () => chart && draw(chart);
  window.addEventListener("resize", onResize);
  void load();
  return {
    el,
    dispose() {
      off();
      clearTimeout(timer);
      window.removeEventListener("resize", onResize);
    },
  };
}
