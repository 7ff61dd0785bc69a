/**
 * Bench comparison: the server's `GET /bench/compare` shown as it answers — every run against the
 * first (the baseline), per compared dimension and Quality/Semantic/Total recomputed over those
 * dimensions, the difference with its 95 % interval as a forest plot, paired or unpaired, Holm's
 * correction when there are several candidates, what is not comparable and why, and the prompts
 * that moved most with both runs' clips side by side in synced players.
 */
import { useQuery } from '@tanstack/react-query';
import type { BenchComparison } from '@vesta/sdk';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { formatScore, useDimensionName, vesta } from './api';
import { ForestPlot, intervalText, signed, verdictOf } from './forest';
import type { ForestRow } from './forest';
import { DataTable, ErrorAlert, StateBadge } from './ui';

type Comparison = BenchComparison['comparisons'][number];
type Row = Comparison['rows'][number];
type PromptDelta = Comparison['prompts'][number];

const AGGREGATES = new Set(['Quality', 'Semantic', 'Total']);

export const formatP = (p: number): string => (p < 0.0001 ? '< 0.0001' : p.toFixed(4));

/** The rows of a comparison as forest rows: dimensions (score units) and aggregates (leaderboard scale). */
export function forestRows(rows: Row[], name: (id: string) => string, holm: boolean): ForestRow[] {
  return rows.map((r) => ({
    key: r.name,
    label: r.kind === 'aggregate' ? r.name : name(r.name),
    delta: r.delta,
    low: r.ci95_low,
    high: r.ci95_high,
    partial: r.partial,
    significant: r.significant,
    higherIsBetter: r.higher_is_better,
    note: `p = ${formatP(r.p_value)}${holm ? `, Holm ${formatP(r.p_adjusted)}` : ''} · ${
      r.pairs !== null ? `${r.pairs} pairs` : `${r.baseline_clips} vs ${r.candidate_clips} clips`
    }, ${r.prompts} prompts`,
  }));
}

/** "Paired: …" or "Unpaired: …", in words, with what was left out. */
export function ModeLabel({ c }: { c: Comparison }) {
  const unmatched = c.unmatched_clips.baseline + c.unmatched_clips.candidate;
  return (
    <p data-testid="compare-mode">
      <span className="mode-label">{c.mode === 'paired' ? 'Paired' : 'Unpaired'}</span>
      <span className="muted">
        {' '}
        — {c.mode_reason}
        {c.mode === 'paired' && unmatched > 0
          ? ` ${unmatched} ${unmatched === 1 ? 'clip has' : 'clips have'} no partner in the other run and ${
              unmatched === 1 ? 'is' : 'are'
            } left out.`
          : ''}
      </span>
    </p>
  );
}

/**
 * Two clips played as one: one play/pause button and one scrubber drive both videos, and the
 * second follows the first if it drifts. Native controls are off so the two cannot part.
 */
export function SyncedPair(props: {
  left: { videoId: string; label: string };
  right: { videoId: string; label: string };
  title: string;
}) {
  const a = useRef<HTMLVideoElement>(null);
  const b = useRef<HTMLVideoElement>(null);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  useEffect(() => {
    const va = a.current;
    const vb = b.current;
    if (!va || !vb) return;
    const onMeta = () => setDuration(Math.max(va.duration || 0, vb.duration || 0));
    const onTime = () => {
      setTime(va.currentTime);
      if (
        !va.paused &&
        Math.abs(vb.currentTime - va.currentTime) > 0.15 &&
        va.currentTime <= (vb.duration || 0)
      )
        vb.currentTime = va.currentTime;
    };
    const onEnded = () => {
      if (va.ended && (vb.ended || vb.paused)) setPlaying(false);
    };
    for (const v of [va, vb]) {
      v.addEventListener('loadedmetadata', onMeta);
      v.addEventListener('ended', onEnded);
    }
    va.addEventListener('timeupdate', onTime);
    return () => {
      for (const v of [va, vb]) {
        v.removeEventListener('loadedmetadata', onMeta);
        v.removeEventListener('ended', onEnded);
      }
      va.removeEventListener('timeupdate', onTime);
    };
  }, []);
  const both = (f: (v: HTMLVideoElement) => void) => {
    for (const v of [a.current, b.current]) if (v) f(v);
  };
  const toggle = () => {
    if (playing) {
      both((v) => v.pause());
      setPlaying(false);
    } else {
      const start = a.current && a.current.ended ? 0 : (a.current?.currentTime ?? 0);
      both((v) => {
        v.currentTime = Math.min(start, v.duration || start);
        void v.play().catch(() => setPlaying(false));
      });
      setPlaying(true);
    }
  };
  const seek = (t: number) => {
    both((v) => {
      v.currentTime = Math.min(t, v.duration || t);
    });
    setTime(t);
  };
  return (
    <div className="synced" role="group" aria-label={props.title} data-testid="synced-pair">
      {[
        { ref: a, side: props.left },
        { ref: b, side: props.right },
      ].map(({ ref, side }) => (
        <figure key={side.label}>
          <video
            ref={ref}
            src={vesta.videos.contentUrl(side.videoId)}
            muted
            playsInline
            preload="auto"
            aria-label={`Player: ${side.label}`}
            data-testid="synced-player"
          />
          <figcaption className="muted">{side.label}</figcaption>
        </figure>
      ))}
      <div className="synced-controls">
        <button type="button" className="secondary button-small" onClick={toggle}>
          {playing ? 'Pause both' : 'Play both'}
        </button>
        <input
          type="range"
          min={0}
          max={duration || 1}
          step={0.01}
          value={Math.min(time, duration || 1)}
          aria-label={`Position in both clips of ${props.title}`}
          onChange={(e) => seek(Number(e.currentTarget.value))}
        />
        <span className="muted">
          {time.toFixed(1)} / {duration.toFixed(1)} s
        </span>
      </div>
    </div>
  );
}

function PromptClips({ p, baseline, candidate }: { p: PromptDelta; baseline: string; candidate: string }) {
  const samples = [...new Set([...p.baseline_clips, ...p.candidate_clips].map((c) => c.sample_index))].sort(
    (x, y) => x - y,
  );
  return (
    <div className="synced-pairs">
      {samples.map((s) => {
        const l = p.baseline_clips.find((c) => c.sample_index === s);
        const r = p.candidate_clips.find((c) => c.sample_index === s);
        if (!l || !r)
          return (
            <p key={s} className="muted">
              Sample {s}: only {l ? baseline : candidate} has a clip.
            </p>
          );
        return (
          <SyncedPair
            key={s}
            title={`${p.prompt_id}, sample ${s}`}
            left={{ videoId: l.video_id, label: `${baseline} · sample ${s}` }}
            right={{ videoId: r.video_id, label: `${candidate} · sample ${s}` }}
          />
        );
      })}
    </div>
  );
}

const PAGE = 15;

/** Per-prompt deltas, largest drop first (the server's order), each with its clips on demand. */
function PromptTable(props: {
  c: Comparison;
  names: Record<string, string>;
  dimensionName: (id: string) => string;
}) {
  const { c, names, dimensionName } = props;
  const [open, setOpen] = useState<string | null>(c.prompts[0]?.prompt_id ?? null);
  const [shown, setShown] = useState(PAGE);
  if (c.prompts.length === 0)
    return (
      <p className="muted">
        No prompt has scored clips in both runs, so there is nothing to show per prompt.
      </p>
    );
  const baseline = names[c.baseline_id] ?? c.baseline_id;
  const candidate = names[c.candidate_id] ?? c.candidate_id;
  return (
    <>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Per-prompt deltas of ${candidate}`}>
        <DataTable
          bare
          testId="prompt-deltas"
          className="scores prompt-table"
          headers={['Prompt', 'Δ (leaderboard scale)', 'Per dimension', 'Clips']}
        >
          {c.prompts.slice(0, shown).flatMap((p) => {
            const isOpen = open === p.prompt_id;
            return [
              <tr key={p.prompt_id} data-prompt={p.prompt_id}>
                <td className="prompt-text">
                  <code>{p.prompt_id}</code> {p.prompt}
                </td>
                <td className={`num ${p.delta < 0 ? 'delta-worse' : p.delta > 0 ? 'delta-better' : ''}`}>
                  <strong>{signed(p.delta)}</strong>
                </td>
                <td className="prompt-text">
                  {p.dimensions
                    .map(
                      (d) =>
                        `${dimensionName(d.dimension)} ${formatScore(d.baseline)} → ${formatScore(d.candidate)}`,
                    )
                    .join('; ')}
                </td>
                <td>
                  <button
                    type="button"
                    className="secondary button-small"
                    aria-expanded={isOpen}
                    onClick={() => setOpen(isOpen ? null : p.prompt_id)}
                  >
                    {isOpen ? 'Hide clips' : 'Show clips'}
                  </button>
                </td>
              </tr>,
              ...(isOpen
                ? [
                    <tr key={`${p.prompt_id}-clips`} className="pair-row">
                      <td colSpan={4}>
                        <PromptClips p={p} baseline={baseline} candidate={candidate} />
                      </td>
                    </tr>,
                  ]
                : []),
            ];
          })}
        </DataTable>
      </div>
      {c.prompts.length > shown && (
        <button type="button" className="secondary" onClick={() => setShown(shown + PAGE)}>
          Show {Math.min(PAGE, c.prompts.length - shown)} more of {c.prompts.length - shown} prompts
        </button>
      )}
    </>
  );
}

/** One candidate against the baseline: forest plots (dimensions; aggregates), mode, prompts. */
export function ComparisonView(props: {
  data: BenchComparison;
  c: Comparison;
  dimensionName: (id: string) => string;
  withPrompts?: boolean;
}) {
  const { data, c, dimensionName, withPrompts = true } = props;
  const names = Object.fromEntries(data.runs.map((r) => [r.id, r.name]));
  const holm = data.correction.method === 'holm';
  const rows = forestRows(c.rows, dimensionName, holm);
  const dims = rows.filter((r) => !AGGREGATES.has(r.key));
  const aggs = rows.filter((r) => AGGREGATES.has(r.key));
  const worse = c.rows.filter(
    (r) =>
      r.significant &&
      verdictOf({ low: r.ci95_low, high: r.ci95_high, higherIsBetter: r.higher_is_better }) === 'worse',
  );
  const better = c.rows.filter(
    (r) =>
      r.significant &&
      verdictOf({ low: r.ci95_low, high: r.ci95_high, higherIsBetter: r.higher_is_better }) === 'better',
  );
  const rowName = (r: Row) => (r.kind === 'aggregate' ? r.name : dimensionName(r.name));
  // Embedded (the run page's baseline card) it is a part of that card, not a card of its own.
  const Wrapper = withPrompts ? 'section' : 'div';
  const Heading = withPrompts ? 'h2' : 'h3';
  return (
    <Wrapper className={withPrompts ? 'card' : 'comparison'} data-testid={`comparison-${c.candidate_id}`}>
      <Heading>
        {names[c.candidate_id] ?? c.candidate_id} <span className="muted">against</span>{' '}
        {names[c.baseline_id] ?? c.baseline_id}
      </Heading>
      <ModeLabel c={c} />
      <p data-testid="compare-summary">
        {worse.length === 0 && better.length === 0
          ? 'No difference is clear at 95 %: every interval crosses 0 (or the adjusted p is 0.05 or more).'
          : [
              worse.length > 0 ? `Worse with confidence: ${worse.map(rowName).join(', ')}.` : '',
              better.length > 0 ? `Better with confidence: ${better.map(rowName).join(', ')}.` : '',
            ]
              .filter(Boolean)
              .join(' ')}
      </p>
      {dims.length > 0 && (
        <ForestPlot
          testId="forest-dimensions"
          title="Per dimension"
          caption="candidate − baseline, score units, 95 % interval"
          rows={dims}
        />
      )}
      {aggs.length > 0 && (
        <ForestPlot
          testId="forest-aggregates"
          title="Quality, Semantic, Total"
          caption="over the compared dimensions only, leaderboard scale; partial = some of the group's dimensions are not compared"
          rows={aggs}
        />
      )}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Differences in numbers">
        <DataTable
          bare
          testId="compare-rows"
          className="scores"
          headers={['', 'Baseline', 'Candidate', 'Δ', '95 % interval', 'p', ...(holm ? ['p (Holm)'] : [])]}
        >
          {c.rows.map((r) => (
            <tr key={r.name}>
              <th scope="row">
                {rowName(r)}
                {r.partial ? ' (partial)' : ''}
              </th>
              <td className="num">{formatScore(r.baseline)}</td>
              <td className="num">{formatScore(r.candidate)}</td>
              <td className="num">
                <strong>{signed(r.delta)}</strong>
              </td>
              <td className="num">{intervalText(r.ci95_low, r.ci95_high)}</td>
              <td className="num">{formatP(r.p_value)}</td>
              {holm && <td className="num">{formatP(r.p_adjusted)}</td>}
            </tr>
          ))}
        </DataTable>
      </div>
      {withPrompts && (
        <>
          <h3 className="section-gap">Per prompt, largest drop first</h3>
          <p className="muted">
            Each prompt's deltas, weighed as the leaderboard weighs its dimensions. Open a prompt to play both
            runs' clips of it side by side: one button plays, pauses and scrubs both.
          </p>
          <PromptTable c={c} names={names} dimensionName={dimensionName} />
        </>
      )}
    </Wrapper>
  );
}

/** The server's sentences name runs by id: show their names, as everywhere on the page. */
function namesFor(data: BenchComparison): (text: string) => string {
  return (text) => data.runs.reduce((t, r) => t.split(r.id).join(`“${r.name}”`), text);
}

/** What cannot be compared, in words; the whole answer when nothing can. */
export function NotComparable({
  data,
  dimensionName,
}: {
  data: BenchComparison;
  dimensionName: (id: string) => string;
}) {
  if (data.not_comparable.length === 0) return null;
  return (
    <div className="not-comparable" data-testid="not-comparable" role={data.comparable ? undefined : 'alert'}>
      <p>
        <strong>
          {data.comparable
            ? 'Not compared (these numbers would not mean the same in every run):'
            : 'These runs cannot be compared: no dimension was scored the same way in every run.'}
        </strong>
      </p>
      <ul>
        {data.not_comparable.map((n) => (
          <li key={n.dimension}>
            {dimensionName(n.dimension)}: {namesFor(data)(n.reason)}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function BenchComparePage() {
  const [params] = useSearchParams();
  const ids = (params.get('ids') ?? '').split(',').filter(Boolean);
  const dimensionName = useDimensionName();
  const cmp = useQuery({
    queryKey: ['bench', 'compare', ids.join(',')],
    queryFn: () => vesta.bench.compare(ids),
    enabled: ids.length > 0,
    // A run still going changes the answer: read it again while any is not final.
    refetchInterval: (q) =>
      q.state.data?.runs.some(
        (r) => r.status !== 'completed' && r.status !== 'failed' && r.status !== 'cancelled',
      )
        ? 5000
        : false,
  });
  const data = cmp.data;
  return (
    <>
      <h1>Compare runs</h1>
      <p className="muted">
        Every run against the first (the baseline): the difference on each dimension all runs share, with its
        95 % interval. A difference is real when its interval leaves out 0.{' '}
        <Link to="/bench">Back to runs</Link>
      </p>
      {ids.length < 2 && (
        <p role="alert" className="error">
          Pick at least two runs to compare (tick them in the <Link to="/bench">runs list</Link>).
        </p>
      )}
      <ErrorAlert error={cmp.error} context="Could not compare these runs" />
      {cmp.isLoading && <p className="muted">Comparing…</p>}
      {data && (
        <>
          <section className="card compare-runs">
            <h2>Runs</h2>
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Runs compared">
              <DataTable
                bare
                testId="compare-table"
                className="scores"
                headers={['Run', 'Role', 'Model', 'Status', 'Suite']}
              >
                {data.runs.map((r, i) => (
                  <tr key={r.id}>
                    <td>
                      <Link to={`/bench/${r.id}`}>{r.name}</Link>
                    </td>
                    <td>{i === 0 ? <strong>baseline</strong> : 'candidate'}</td>
                    <td>{r.model_id}</td>
                    <td>
                      <StateBadge state={r.status} label={r.label} />
                    </td>
                    <td>{r.suite_version ?? '—'}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
            {data.correction.method === 'holm' && (
              <p data-testid="correction">
                <strong>Several comparisons:</strong> {namesFor(data)(data.correction.statement)}
              </p>
            )}
            <NotComparable data={data} dimensionName={dimensionName} />
          </section>
          {data.comparable &&
            data.comparisons.map((c) => (
              <ComparisonView key={c.candidate_id} data={data} c={c} dimensionName={dimensionName} />
            ))}
        </>
      )}
    </>
  );
}
