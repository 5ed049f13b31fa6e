/**
 * Latency samples and their percentiles. Every sample of a measured window is kept (a few hundred
 * thousand doubles at most) and sorted once, so percentiles are exact rather than bucketed.
 */

export class Samples {
  #values: Float64Array = new Float64Array(4096);
  #n = 0;

  add(ms: number): void {
    if (this.#n === this.#values.length) {
      const bigger = new Float64Array(this.#values.length * 2);
      bigger.set(this.#values);
      this.#values = bigger;
    }
    this.#values[this.#n++] = ms;
  }

  get count(): number {
    return this.#n;
  }

  /** Nearest-rank percentiles of the samples, in ms; NaN when there are none. */
  percentiles(ps: number[]): number[] {
    if (this.#n === 0) return ps.map(() => Number.NaN);
    const sorted = this.#values.slice(0, this.#n).sort();
    return ps.map((p) => sorted[Math.min(this.#n - 1, Math.max(0, Math.ceil((p / 100) * this.#n) - 1))]!);
  }
}

/** Successes with their latencies, and failures by kind, for one request kind in one window. */
export class Tally {
  readonly ok = new Samples();
  errors = 0;
  readonly errorKinds = new Map<string, number>();

  error(kind: string): void {
    this.errors++;
    this.errorKinds.set(kind, (this.errorKinds.get(kind) ?? 0) + 1);
  }

  summary(seconds: number): TallySummary {
    const [p50, p99, max] = this.ok.percentiles([50, 99, 100]) as [number, number, number];
    return {
      count: this.ok.count,
      perSecond: this.ok.count / seconds,
      p50,
      p99,
      max,
      errors: this.errors,
      errorKinds: Object.fromEntries(this.errorKinds),
    };
  }
}

export interface TallySummary {
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  errorKinds: Record<string, number>;
}

export const fmtMs = (v: number): string => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1));
export const fmtRate = (v: number): string => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));

/** A Markdown table with padded columns, readable both raw and rendered. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
