/**
 * A forest plot: one row per difference (a dimension, Quality, Semantic, Total), its 95 % interval
 * as a bar and the estimate as a dot, against a line at zero. Plain HTML positioned in percent, so
 * it fits any width (labels above the track on a phone). The numbers are text beside each row, so a
 * screen reader and a copy-paste get them too.
 */
import './forest.css';

export interface ForestRow {
  key: string;
  label: string;
  delta: number;
  low: number | null;
  high: number | null;
  /** Aggregates over an incomplete VBench group. */
  partial?: boolean;
  /** The server's verdict (interval leaves out 0 and the adjusted p < 0.05). */
  significant?: boolean;
  /** Higher is better for this row (false turns "worse" round). */
  higherIsBetter?: boolean;
  /** Extra words after the interval (p-values, pairs). */
  note?: string;
}

export type Verdict = 'better' | 'worse' | 'unclear' | 'no-interval';

/** Where a row's interval lies: wholly above zero (better), below (worse), across it, or none. */
export function verdictOf(row: Pick<ForestRow, 'low' | 'high' | 'higherIsBetter'>): Verdict {
  if (row.low === null || row.high === null) return 'no-interval';
  const up = row.higherIsBetter !== false;
  if (row.low > 0) return up ? 'better' : 'worse';
  if (row.high < 0) return up ? 'worse' : 'better';
  return 'unclear';
}

const VERDICT_WORDS: Record<Verdict, string> = {
  better: 'better: the interval lies above 0',
  worse: 'worse: the interval lies below 0',
  unclear: 'no clear difference: the interval crosses 0',
  'no-interval': 'no interval (a clip group of one prompt)',
};

export const signed = (v: number, digits = 4): string =>
  `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(digits)}`;

export function intervalText(low: number | null, high: number | null, digits = 4): string {
  return low === null || high === null ? 'no interval' : `[${signed(low, digits)}, ${signed(high, digits)}]`;
}

export function ForestPlot(props: { title: string; caption?: string; rows: ForestRow[]; testId?: string }) {
  const { rows, title, caption, testId } = props;
  // A scale symmetric about zero, wide enough for every interval (and every estimate).
  const extent =
    Math.max(1e-9, ...rows.flatMap((r) => [Math.abs(r.delta), Math.abs(r.low ?? 0), Math.abs(r.high ?? 0)])) *
    1.08;
  const x = (v: number) => `${((v + extent) / (2 * extent)) * 100}%`;
  return (
    <figure className="forest" data-testid={testId}>
      <figcaption>
        <strong>{title}</strong>
        {caption && <span className="muted"> {caption}</span>}
      </figcaption>
      <div className="forest-axis" aria-hidden="true">
        <span />
        <span className="forest-ticks">
          <span style={{ left: '0%' }}>{signed(-extent, 3)}</span>
          <span style={{ left: '50%' }}>0</span>
          <span style={{ left: '100%' }}>{signed(extent, 3)}</span>
        </span>
        <span />
      </div>
      <ul>
        {rows.map((r) => {
          const verdict = verdictOf(r);
          return (
            <li
              key={r.key}
              className={`forest-row forest-${verdict}`}
              data-verdict={verdict}
              data-row={r.key}
            >
              <span className="forest-label">
                {r.label}
                {r.partial && (
                  <span
                    className="tag forest-partial"
                    title="Computed over the compared dimensions of its group only"
                  >
                    partial
                  </span>
                )}
              </span>
              <span className="forest-track" aria-hidden="true">
                <span className="forest-zero" style={{ left: '50%' }} />
                {r.low !== null && r.high !== null && (
                  <span
                    className="forest-bar"
                    style={{ left: x(r.low), width: `calc(${x(r.high)} - ${x(r.low)})` }}
                  />
                )}
                <span className="forest-dot" style={{ left: x(r.delta) }} />
              </span>
              <span className="forest-numbers">
                <strong>{signed(r.delta)}</strong> {intervalText(r.low, r.high)}
                <span className="sr-only"> — {VERDICT_WORDS[verdict]}</span>
                {r.significant && <span className="tag forest-sig">significant</span>}
                {r.note && <span className="muted forest-note">{r.note}</span>}
              </span>
            </li>
          );
        })}
      </ul>
      <p className="forest-legend muted">
        <span className="forest-key forest-better" /> better (interval above 0){' '}
        <span className="forest-key forest-worse" /> worse (interval below 0){' '}
        <span className="forest-key forest-unclear" /> interval crosses 0
      </p>
    </figure>
  );
}
