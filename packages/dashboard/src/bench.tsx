/**
 * Bench: runs list (with each model's baseline and every run's Total against it), create form, run
 * page (progress, scores with 95 % intervals, deltas against the model's baseline, clips, logs,
 * CSV, cancel, delete). The comparison page is in bench-compare.tsx.
 */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BenchRun, BenchScorecard, BenchVideo } from '@vesta/sdk';
import { useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  field,
  formatDate,
  formatMethod,
  formatScore,
  livePoll,
  useDimensionName,
  useDimensions,
  vesta,
} from './api';
import {
  DataTable,
  ErrorAlert,
  PromptNotice,
  StateBadge,
  UnscoredNotice,
  demoRunnerCommand,
  stateWords,
} from './ui';
import { BarChart } from './chart';
import { ClipPlayer } from './sessions';
import { ComparisonView, NotComparable } from './bench-compare';
import { intervalText, signed, verdictOf } from './forest';
import './forest.css';

export { BenchComparePage } from './bench-compare';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Task states in which the clip's bytes are stored and verified. */
const CLIP_STORED = new Set(['evaluating', 'done']);

function Progress({ run }: { run: BenchRun }) {
  const p = run.progress;
  const total = Math.max(1, p.tasks_total);
  const done = p.tasks_done + p.tasks_failed;
  return (
    <span className="progress-cell">
      <progress max={total} value={done} aria-label={`Progress of ${run.name}`} />
      <span>
        {done}/{p.tasks_total}
      </span>
    </span>
  );
}

/** Each model's baseline run (the caller's), read once per model shown. */
function useBaselines(models: string[]) {
  const queries = useQueries({
    queries: models.map((m) => ({
      queryKey: ['baseline', m],
      queryFn: () => vesta.models.baseline(m),
    })),
  });
  return new Map(models.map((m, i) => [m, queries[i]?.data?.run_id ?? null]));
}

/** A run's Total against its model's baseline, from the server's comparison (shared dimensions only). */
function DeltaToBaseline({ run, baselineId }: { run: BenchRun; baselineId: string }) {
  const cmp = useQuery({
    queryKey: ['bench', 'compare', `${baselineId},${run.id}`, 'total'],
    // Only the Total is shown here: no per-prompt rows (a 1,000-clip run's are ~180 kB).
    queryFn: () => vesta.bench.compare([baselineId, run.id], { promptLimit: 0 }),
    staleTime: Infinity,
    retry: false,
  });
  if (cmp.error)
    return (
      <span className="muted" title={cmp.error.message}>
        not comparable
      </span>
    );
  if (!cmp.data) return <span className="muted">…</span>;
  if (!cmp.data.comparable) return <span className="muted">not comparable</span>;
  const total = cmp.data.comparisons[0]?.rows.find((r) => r.name === 'Total');
  if (!total) return <span className="muted">—</span>;
  const verdict = verdictOf({
    low: total.ci95_low,
    high: total.ci95_high,
    higherIsBetter: total.higher_is_better,
  });
  return (
    <span
      className={`baseline-cell ${verdict === 'worse' ? 'delta-worse' : verdict === 'better' ? 'delta-better' : ''}`}
      data-testid="delta-to-baseline"
      data-verdict={verdict}
      title={`Total, ${cmp.data.comparisons[0]!.mode}, over ${cmp.data.dimensions.length} shared dimension(s)`}
    >
      <strong>{signed(total.delta)}</strong>{' '}
      <span className="muted">{intervalText(total.ci95_low, total.ci95_high, 3)}</span>
      {total.partial && <span className="tag forest-partial">partial</span>}
    </span>
  );
}

export function RunsTable({
  runs,
  selectable,
  baselines,
}: {
  runs: BenchRun[];
  selectable?: { selected: Set<string>; toggle: (id: string) => void };
  /** Each model's baseline run id: adds the Baseline and Δ Total columns. */
  baselines?: {
    of: Map<string, string | null>;
    set: (model: string, runId: string) => void;
    clear: (model: string) => void;
    busy: boolean;
  };
}) {
  return (
    <DataTable
      cards
      bare
      testId="runs-table"
      headers={[
        ...(selectable
          ? [
              <span key="compare" className="sr-only">
                Compare
              </span>,
            ]
          : []),
        'Name',
        'Model',
        'Status',
        'Progress',
        ...(baselines ? ['Baseline', 'Δ Total vs baseline'] : []),
        'Created',
      ]}
    >
      {runs.map((r) => (
        <tr key={r.id}>
          {selectable && (
            <td>
              <input
                type="checkbox"
                aria-label={`Compare ${r.name}`}
                checked={selectable.selected.has(r.id)}
                onChange={() => selectable.toggle(r.id)}
              />
            </td>
          )}
          <td>
            <Link to={`/bench/${r.id}`}>{r.name}</Link>
          </td>
          <td>{r.model_id}</td>
          <td>
            <StateBadge state={r.status} />
          </td>
          <td>
            <Progress run={r} />
          </td>
          {baselines && (
            <BaselineCells
              run={r}
              baselineId={baselines.of.get(r.model_id) ?? null}
              set={baselines.set}
              clear={baselines.clear}
              busy={baselines.busy}
            />
          )}
          <td>{formatDate(r.created_at)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function BaselineCells(props: {
  run: BenchRun;
  baselineId: string | null;
  set: (model: string, runId: string) => void;
  clear: (model: string) => void;
  busy: boolean;
}) {
  const { run, baselineId, set, clear, busy } = props;
  const isBaseline = baselineId === run.id;
  return (
    <>
      <td className="baseline-cell">
        {isBaseline ? (
          <>
            <span className="tag" data-testid="baseline-tag">
              baseline
            </span>{' '}
            <button
              type="button"
              className="secondary button-small"
              disabled={busy}
              aria-label={`Clear baseline: ${run.name} for ${run.model_id}`}
              onClick={() => clear(run.model_id)}
            >
              Clear
            </button>
          </>
        ) : run.status === 'completed' ? (
          <button
            type="button"
            className="secondary button-small"
            disabled={busy}
            aria-label={`Make baseline: ${run.name} for ${run.model_id}`}
            onClick={() => set(run.model_id, run.id)}
          >
            Make baseline
          </button>
        ) : null}
      </td>
      <td>
        {isBaseline ? (
          <span className="muted">—</span>
        ) : baselineId !== null && run.status === 'completed' ? (
          <DeltaToBaseline run={run} baselineId={baselineId} />
        ) : baselineId === null ? (
          <span className="muted">no baseline</span>
        ) : (
          <span className="muted">when completed</span>
        )}
      </td>
    </>
  );
}

export function BenchListPage() {
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const navigate = useNavigate();
  const runs = useQuery({
    queryKey: ['bench', 'list', page],
    queryFn: () => vesta.bench.listPage({ page, limit: 50 }),
    refetchInterval: livePoll<Awaited<ReturnType<typeof vesta.bench.listPage>>>((p) =>
      p.items.some((r) => !TERMINAL.has(r.status)),
    ),
  });
  const qc = useQueryClient();
  const models = [...new Set((runs.data?.items ?? []).map((r) => r.model_id))].sort();
  const baselineOf = useBaselines(models);
  const changeBaseline = useMutation({
    mutationFn: async (a: { model: string; runId: string | null }) => {
      if (a.runId === null) await vesta.models.clearBaseline(a.model);
      else await vesta.models.setBaseline(a.model, a.runId);
    },
    onSettled: (_d, _e, a) => void qc.invalidateQueries({ queryKey: ['baseline', a.model] }),
  });
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <>
      <div className="title-row">
        <h1>Bench runs</h1>
        <Link className="button" to="/bench/new">
          New run
        </Link>
      </div>
      <ErrorAlert error={runs.error} />
      {runs.data?.total === 0 ? (
        <section className="card empty">
          <h2>No runs yet</h2>
          <p>
            A Bench run has a model generate clips for Vesta's prompt suite, scores them on the dimensions you
            pick, and sums them up VBench's way (Quality, Semantic, Total).
          </p>
          <p>
            Clips come from a <Link to="/runners">runner</Link>. To try it without a model, start the demo
            runner with an API key, then press <strong>New run</strong> and pick the demo model:
          </p>
          <pre className="command">{demoRunnerCommand()}</pre>
        </section>
      ) : (
        <section className="card">
          <div className="toolbar">
            <button
              type="button"
              disabled={selected.size < 2}
              onClick={() => {
                // A model's baseline, when ticked, is the comparison's baseline; else the first ticked.
                const baselineIds = new Set(baselineOf.values());
                const ordered = [...selected].sort(
                  (a, b) => Number(baselineIds.has(b)) - Number(baselineIds.has(a)),
                );
                void navigate(`/bench/compare?ids=${ordered.join(',')}`);
              }}
            >
              Compare selected ({selected.size})
            </button>
            <span className="muted">
              Tick two or more runs to compare them with the first ticked (or with a baseline run among them).
              A model's baseline run is what its other runs' Totals are measured against (over the dimensions
              both have, 95 % interval).
            </span>
          </div>
          <ErrorAlert error={changeBaseline.error} context="Could not change the baseline" />
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Bench runs">
            <RunsTable
              runs={runs.data?.items ?? []}
              selectable={{ selected, toggle }}
              baselines={{
                of: baselineOf,
                set: (model, runId) => changeBaseline.mutate({ model, runId }),
                clear: (model) => changeBaseline.mutate({ model, runId: null }),
                busy: changeBaseline.isPending,
              }}
            />
          </div>
          <div className="pager">
            {(page > 1 || runs.data?.hasMore) && (
              <button
                type="button"
                className="secondary"
                disabled={page <= 1}
                onClick={() => setPage(page - 1)}
              >
                Previous
              </button>
            )}
            <span className="muted">
              {runs.data === undefined
                ? 'Loading…'
                : page > 1 || runs.data.hasMore
                  ? `Page ${page} · ${runs.data.total} runs`
                  : `${runs.data.total} ${runs.data.total === 1 ? 'run' : 'runs'}`}
            </span>
            {(page > 1 || runs.data?.hasMore) && (
              <button
                type="button"
                className="secondary"
                disabled={!runs.data?.hasMore}
                onClick={() => setPage(page + 1)}
              >
                Next
              </button>
            )}
          </div>
        </section>
      )}
    </>
  );
}

export function BenchCreatePage() {
  const navigate = useNavigate();
  const models = useQuery({ queryKey: ['models'], queryFn: () => vesta.models.list() });
  const dims = useDimensions();
  const runners = useQuery({ queryKey: ['runners'], queryFn: () => vesta.runners.list() });
  const create = useMutation({
    mutationFn: (body: Parameters<typeof vesta.bench.create>[0]) => vesta.bench.create(body),
    onSuccess: (run) => navigate(`/bench/${run.id}`),
  });
  const benchDims = (dims.data?.items ?? []).filter((d) => d.workflows.includes('bench'));
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const runner = field(form, 'runner');
    const samples = field(form, 'samples');
    const prompts = field(form, 'prompts');
    create.mutate({
      name: field(form, 'name'),
      modelId: field(form, 'model'),
      dimensions: form.getAll('dimension').map(String),
      ...(runner ? { runnerId: runner } : {}),
      ...(samples ? { samplesPerPrompt: Number(samples) } : {}),
      ...(prompts ? { promptsPerDimension: Number(prompts) } : {}),
    });
  };
  const group = (category: 'quality' | 'semantic', title: string) => {
    const list = benchDims.filter((d) => d.category === category);
    const none = list.length > 0 && list.every((d) => d.defaultMethod === null);
    return (
      <fieldset className="dims">
        <legend>{title}</legend>
        {none && (
          <p className="muted note">
            None of these can be scored on this server yet: each needs model weights it does not have (see{' '}
            <Link to="/dimensions">Dimensions</Link>).
          </p>
        )}
        {list.map((d) => (
          <label key={d.id} className={`check ${d.defaultMethod === null ? 'off' : ''}`}>
            <input type="checkbox" name="dimension" value={d.id} disabled={d.defaultMethod === null} />
            <span>
              <strong>{d.name}</strong>{' '}
              {d.defaultMethod === null ? (
                none ? null : (
                  <span className="tag tag-off">not available here</span>
                )
              ) : (
                <span className="tag" title="The method this server uses for it">
                  {d.defaultMethod}
                </span>
              )}
              <br />
              <span className="muted">{d.description}</span>
            </span>
          </label>
        ))}
      </fieldset>
    );
  };
  return (
    <>
      <h1>New Bench run</h1>
      <form className="card" onSubmit={onSubmit}>
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="e.g. my-model v2, 5 samples" />
        </label>
        <label>
          Model
          <select name="model" required>
            {models.data?.items.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} · {m.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Runner
          <select name="runner">
            <option value="">Any of my runners serving the model</option>
            {runners.data?.items.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name} ({r.online ? 'online' : 'offline'})
              </option>
            ))}
          </select>
        </label>
        <div className="row numbers">
          <label>
            Samples per prompt
            <input name="samples" type="number" min={1} max={100} placeholder="5" />
          </label>
          <label>
            Prompts per dimension (optional)
            <input name="prompts" type="number" min={1} max={1000} placeholder="all" />
          </label>
        </div>
        {group('quality', 'Quality dimensions')}
        {group('semantic', 'Semantic dimensions')}
        <ErrorAlert error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Create run
        </button>
      </form>
    </>
  );
}

async function allVideos(id: string): Promise<BenchVideo[]> {
  const out: BenchVideo[] = [];
  for await (const v of vesta.bench.allVideos(id)) out.push(v);
  return out;
}

export function BenchRunPage() {
  const { id = '' } = useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const run = useQuery({
    queryKey: ['bench', id],
    queryFn: () => vesta.bench.get(id),
    refetchInterval: livePoll<BenchRun>((r) => !TERMINAL.has(r.status)),
  });
  const active = run.data !== undefined && !TERMINAL.has(run.data.status);
  const videos = useQuery({
    queryKey: ['bench', id, 'videos', run.data?.progress.clips_evaluated, run.data?.status],
    queryFn: () => allVideos(id),
    enabled: run.data !== undefined,
  });
  const logs = useQuery({
    queryKey: ['bench', id, 'logs', run.data?.status, run.data?.progress.tasks_done],
    queryFn: () => vesta.bench.logs(id, { limit: 200 }),
    enabled: run.data !== undefined,
  });
  const dims = useDimensions();
  const dimensionName = useDimensionName();
  const dimensionOrder = (id: string) => {
    const i = (dims.data?.items ?? []).findIndex((d) => d.id === id);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  const cancel = useMutation({
    mutationFn: () => vesta.bench.cancel(id),
    onSuccess: (r) => qc.setQueryData(['bench', id], r),
  });
  const remove = useMutation({
    mutationFn: () => vesta.bench.delete(id),
    onSuccess: () => navigate('/bench'),
  });
  const [csvError, setCsvError] = useState<unknown>(null);
  // The stored final scorecard comes with the run; a live run's is read as clips are scored.
  const live = useQuery({
    queryKey: ['bench', id, 'scorecard', run.data?.progress.clips_evaluated, run.data?.status],
    queryFn: () => vesta.bench.scorecard(id),
    enabled: run.data !== undefined && run.data.scorecard === null && run.data.progress.clips_evaluated > 0,
    placeholderData: (previous: BenchScorecard | undefined) => previous,
  });
  const card: BenchScorecard | null = run.data?.scorecard ?? live.data ?? null;
  const scored = useMemo(() => (card?.dimensions ?? []).filter((d) => d.score !== null), [card]);
  const labels = useMemo(() => scored.map((d) => dimensionName(d.dimension)), [scored, dimensionName]);
  const series = useMemo(
    () => [
      {
        label: 'mean',
        values: scored.map((d) => d.score),
        intervals: scored.map((d) =>
          d.ci95_low !== null && d.ci95_high !== null ? ([d.ci95_low, d.ci95_high] as const) : null,
        ),
      },
    ],
    [scored],
  );
  const r = run.data;
  if (run.error) return <ErrorAlert error={run.error} />;
  if (!r) return <p className="muted">Loading…</p>;
  const downloadCsv = () => {
    setCsvError(null);
    vesta.bench
      .csv(id)
      .then((text) => {
        const a = document.createElement('a');
        a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
        a.download = `${r.name.replace(/[^A-Za-z0-9._-]+/g, '_')}.csv`;
        a.click();
      })
      .catch((e: unknown) => setCsvError(e));
  };
  return (
    <>
      <div className="title-row">
        <h1>{r.name}</h1>
        <span className={`state state-${r.status}`} data-testid="run-status">
          {stateWords(r.status)}
        </span>
      </div>
      <section className="card">
        <p>
          Model <code>{r.model_id}</code> ·{' '}
          {r.runner_id === null ? (
            'any of your runners'
          ) : (
            <>
              runner <code>{r.runner_id}</code>
            </>
          )}{' '}
          · {r.samples_per_prompt} {r.samples_per_prompt === 1 ? 'sample' : 'samples'} per prompt · created{' '}
          {formatDate(r.created_at)}
        </p>
        <p className="run-progress">
          <Progress run={r} />
          <span className="muted">
            {r.progress.tasks_generated} {r.progress.tasks_generated === 1 ? 'clip' : 'clips'} generated,{' '}
            {r.progress.clips_evaluated} of {r.progress.clips_total} evaluated, {r.progress.tasks_failed}{' '}
            failed
          </span>
        </p>
        {r.status === 'queued' && (
          <p className="muted">
            Waiting for a runner serving <code>{r.model_id}</code> to pick it up (see{' '}
            <Link to="/runners">Runners</Link>).
          </p>
        )}
        <ErrorAlert error={r.error} />
        <div className="row">
          <button type="button" onClick={downloadCsv}>
            Download CSV
          </button>
          {active && (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                if (window.confirm('Cancel this run? Unfinished clips are dropped.')) cancel.mutate();
              }}
            >
              Cancel run
            </button>
          )}
          {!active && (
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm('Delete this run with its clips, scores and logs?')) remove.mutate();
              }}
            >
              Delete run
            </button>
          )}
        </div>
        <ErrorAlert error={csvError ?? cancel.error ?? remove.error} />
      </section>
      <section className="card">
        <h2>Scores</h2>
        <p className="muted">
          Each score with its 95 % interval (a bootstrap over prompts, seeded from the run id){' '}
          {card?.final ? '— final.' : '— from the clips scored so far; it moves until the run ends.'}
        </p>
        <UnscoredNotice unscored={r.unscored_dimensions} />
        <PromptNotice notice={r.prompt_notice} />
        <dl className="totals run-totals" data-testid="run-totals">
          {(['Quality', 'Semantic', 'Total'] as const).map((name) => {
            const a = card?.aggregates.find((x) => x.name === name);
            return (
              <div key={name}>
                <dt>
                  {name}
                  {a?.partial && <span className="tag forest-partial">partial</span>}
                </dt>
                <dd>{formatScore(a?.value)}</dd>
                {a && a.value !== null && (
                  <dd className="muted interval">
                    {a.ci95_low !== null && a.ci95_high !== null
                      ? `${formatScore(a.ci95_low)} – ${formatScore(a.ci95_high)}`
                      : 'no interval'}{' '}
                    · {a.prompts} prompts
                  </dd>
                )}
              </div>
            );
          })}
        </dl>
        {labels.length > 0 ? (
          <>
            <BarChart
              title={`Per-dimension means of ${r.name}, with 95 % intervals`}
              labels={labels}
              series={series}
              max={1}
            />
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Scores with intervals">
              <DataTable
                bare
                testId="run-scores"
                className="scores"
                headers={['Dimension', 'Score', '95 % interval', 'Clips', 'Prompts', 'Method']}
              >
                {scored.map((d) => (
                  <tr key={d.dimension}>
                    <th scope="row">{dimensionName(d.dimension)}</th>
                    <td className="num">
                      <strong>{formatScore(d.score)}</strong>
                    </td>
                    <td className="num">
                      {d.ci95_low !== null && d.ci95_high !== null
                        ? `${formatScore(d.ci95_low)} – ${formatScore(d.ci95_high)}`
                        : 'none (one prompt)'}
                    </td>
                    <td className="num">{d.clips}</td>
                    <td className="num">{d.prompts}</td>
                    <td className="muted">{d.methods.join(', ')}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
          </>
        ) : (
          <p className="muted">No scores yet.</p>
        )}
      </section>
      <AgainstBaseline run={r} scored={scored.length > 0} />
      <section className="card">
        <h2>Clips</h2>
        {(videos.data ?? []).length === 0 && <p className="muted">No clips generated yet.</p>}
        <div className="clip-grid">
          {(videos.data ?? []).map((v) => (
            <article key={v.task_id} className="clip">
              <p className="clip-prompt">
                <strong>#{v.seq}</strong> {v.prompt}
              </p>
              {v.video_id !== null && CLIP_STORED.has(v.state) && (
                <ClipPlayer videoId={v.video_id} label={`clip ${v.seq}: ${v.prompt}`} width={280} />
              )}
              <p className="muted">
                <StateBadge state={v.state} /> seed {v.seed}
              </p>
              {v.scores.length > 0 && (
                <table className="mini">
                  <tbody>
                    {v.scores
                      .slice()
                      .sort((a, b) => dimensionOrder(a.dimension) - dimensionOrder(b.dimension))
                      .map((s) => (
                        <tr key={s.dimension}>
                          <th scope="row">{dimensionName(s.dimension)}</th>
                          <td className="num">{formatScore(s.value)}</td>
                          <td className="muted">{formatMethod(s.method, s.method_version)}</td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              )}
            </article>
          ))}
        </div>
      </section>
      <section className="card">
        <h2>Logs</h2>
        <pre className="logs" data-testid="logs" tabIndex={0} aria-label={`Logs of ${r.name}`}>
          {(logs.data?.items ?? []).map((l) => `${l.time} ${l.source} ${l.level}: ${l.message}`).join('\n')}
        </pre>
      </section>
    </>
  );
}

/** The run against its model's baseline run: forest plots of the deltas, and a link to the full comparison. */
function AgainstBaseline({ run, scored }: { run: BenchRun; scored: boolean }) {
  const qc = useQueryClient();
  const dimensionName = useDimensionName();
  const baseline = useQuery({
    queryKey: ['baseline', run.model_id],
    queryFn: () => vesta.models.baseline(run.model_id),
  });
  const baseId = baseline.data?.run_id ?? null;
  const cmp = useQuery({
    queryKey: ['bench', 'compare', `${baseId},${run.id}`, run.progress.clips_evaluated, run.status],
    queryFn: () => vesta.bench.compare([baseId!, run.id]),
    enabled: baseId !== null && baseId !== run.id && scored,
    retry: false,
    placeholderData: (previous) => previous,
  });
  const change = useMutation({
    mutationFn: async (set: boolean) => {
      if (set) await vesta.models.setBaseline(run.model_id, run.id);
      else await vesta.models.clearBaseline(run.model_id);
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: ['baseline', run.model_id] }),
  });
  if (!baseline.data) return <ErrorAlert error={baseline.error} />;
  return (
    <section className="card" data-testid="against-baseline">
      <h2>Against the baseline</h2>
      {baseId === run.id ? (
        <p>
          This run is the baseline of <code>{run.model_id}</code>: its other runs show their deltas against
          it.{' '}
          <button type="button" className="secondary button-small" onClick={() => change.mutate(false)}>
            Clear baseline
          </button>
        </p>
      ) : baseId === null ? (
        <p>
          <code>{run.model_id}</code> has no baseline run.{' '}
          {run.status === 'completed' ? (
            <button type="button" className="secondary button-small" onClick={() => change.mutate(true)}>
              Make this run the baseline
            </button>
          ) : (
            'A completed run can be made its baseline here or in the runs list.'
          )}
        </p>
      ) : !scored ? (
        <p className="muted">The deltas against the baseline appear once this run has scored clips.</p>
      ) : (
        <>
          <p>
            Baseline: <Link to={`/bench/${baseId}`}>{cmp.data?.runs[0]?.name ?? baseId}</Link> ·{' '}
            <Link to={`/bench/compare?ids=${baseId},${run.id}`}>Full comparison, per prompt with clips</Link>
          </p>
          <ErrorAlert error={cmp.error} context="Could not compare with the baseline" />
          {cmp.data && <NotComparable data={cmp.data} dimensionName={dimensionName} />}
          {cmp.data?.comparable && cmp.data.comparisons[0] && (
            <ComparisonView
              data={cmp.data}
              c={cmp.data.comparisons[0]}
              dimensionName={dimensionName}
              withPrompts={false}
            />
          )}
        </>
      )}
      <ErrorAlert error={change.error} context="Could not change the baseline" />
    </section>
  );
}
