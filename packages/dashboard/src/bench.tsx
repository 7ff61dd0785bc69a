/** Bench: runs list, create form, run page (progress, chart, totals, clips, logs, CSV, cancel, delete), comparison. */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BenchRun, BenchVideo, Dimension } from '@vesta/sdk';
import { useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
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
import { DataTable, ErrorAlert, ScoreMatrix, StateBadge } from './ui';
import { BarChart } from './chart';
import { ClipPlayer } from './sessions';

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

export function RunsTable({
  runs,
  selectable,
}: {
  runs: BenchRun[];
  selectable?: { selected: Set<string>; toggle: (id: string) => void };
}) {
  return (
    <DataTable
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
          <td>{formatDate(r.created_at)}</td>
        </tr>
      ))}
    </DataTable>
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
          <pre className="command">npx vesta runner start --demo</pre>
        </section>
      ) : (
        <section className="card">
          <div className="toolbar">
            <button
              type="button"
              disabled={selected.size < 2}
              onClick={() => void navigate(`/bench/compare?ids=${[...selected].join(',')}`)}
            >
              Compare selected ({selected.size})
            </button>
            <span className="muted">Tick two or more runs to compare them side by side.</span>
          </div>
          <RunsTable runs={runs.data?.items ?? []} selectable={{ selected, toggle }} />
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

/** Per-dimension means of a run's clips, and VBench's Quality/Semantic/Total from them. */
export function summarise(videos: BenchVideo[], dimensions: Dimension[]) {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const v of videos)
    for (const s of v.scores) {
      const e = sums.get(s.dimension) ?? { sum: 0, n: 0 };
      e.sum += s.value;
      e.n += 1;
      sums.set(s.dimension, e);
    }
  // In the catalogue's (VBench's) order; a dimension the catalogue lacks goes last.
  const order = (d: string) => {
    const i = dimensions.findIndex((x) => x.id === d);
    return i === -1 ? dimensions.length : i;
  };
  const means = new Map([...sums].sort(([a], [b]) => order(a) - order(b)).map(([d, e]) => [d, e.sum / e.n]));
  const group = (category: 'quality' | 'semantic'): number | null => {
    let weighted = 0;
    let weights = 0;
    for (const d of dimensions) {
      const m = means.get(d.id);
      if (d.category !== category || m === undefined) continue;
      const { min, max, weight } = d.normalisation;
      weighted += (weight * (m - min)) / (max - min);
      weights += weight;
    }
    return weights === 0 ? null : weighted / weights;
  };
  const quality = group('quality');
  const semantic = group('semantic');
  const total = quality !== null && semantic !== null ? (4 * quality + semantic) / 5 : (quality ?? semantic);
  return { means, quality, semantic, total };
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
  const summary = useMemo(
    () => summarise(videos.data ?? [], dims.data?.items ?? []),
    [videos.data, dims.data],
  );
  const labels = useMemo(() => [...summary.means.keys()].map(dimensionName), [summary, dimensionName]);
  const series = useMemo(() => [{ label: 'mean', values: [...summary.means.values()] }], [summary]);
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
          {r.status}
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
        <dl className="totals">
          <div>
            <dt>Quality</dt>
            <dd>{formatScore(summary.quality)}</dd>
          </div>
          <div>
            <dt>Semantic</dt>
            <dd>{formatScore(summary.semantic)}</dd>
          </div>
          <div>
            <dt>Total</dt>
            <dd>{formatScore(summary.total)}</dd>
          </div>
        </dl>
        {labels.length > 0 ? (
          <BarChart title={`Per-dimension means of ${r.name}`} labels={labels} series={series} max={1} />
        ) : (
          <p className="muted">No scores yet.</p>
        )}
      </section>
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
        <pre className="logs" data-testid="logs">
          {(logs.data?.items ?? []).map((l) => `${l.time} ${l.source} ${l.level}: ${l.message}`).join('\n')}
        </pre>
      </section>
    </>
  );
}

export function BenchComparePage() {
  const [params] = useSearchParams();
  const ids = (params.get('ids') ?? '').split(',').filter(Boolean);
  const dims = useDimensions();
  const dimensionName = useDimensionName();
  const runs = useQueries({
    queries: ids.map((id) => ({
      queryKey: ['bench', id],
      queryFn: () => vesta.bench.get(id),
      refetchInterval: livePoll<BenchRun>((r) => !TERMINAL.has(r.status)),
    })),
  });
  // Re-read a run's clips whenever its evaluated count or status moves (live while unfinished).
  const videos = useQueries({
    queries: ids.map((id, i) => ({
      queryKey: ['bench', id, 'all-videos', runs[i]?.data?.progress.clips_evaluated, runs[i]?.data?.status],
      queryFn: () => allVideos(id),
      enabled: runs[i]?.data !== undefined,
      placeholderData: (previous: BenchVideo[] | undefined) => previous,
    })),
  });
  const loaded = videos.every((v) => v.data) && runs.every((r) => r.data) && dims.data;
  const rows = loaded
    ? ids.map((id, i) => ({ run: runs[i]!.data!, ...summarise(videos[i]!.data!, dims.data.items) }))
    : [];
  // Best Total first, in the table, the matrix and the chart alike.
  const sorted = rows.slice().sort((a, b) => (b.total ?? -1) - (a.total ?? -1));
  const labels = [...new Set(sorted.flatMap((r) => [...r.means.keys()]))];
  const series = sorted.map((r) => ({
    label: r.run.name,
    values: labels.map((d) => r.means.get(d) ?? null),
  }));
  const names = labels.map(dimensionName);
  const error = [...runs, ...videos].find((q) => q.error)?.error;
  return (
    <>
      <h1>Compare runs</h1>
      <p className="muted">
        Best Total first. Each dimension shows the mean over a run's scored clips; Quality, Semantic and Total
        weigh those means as VBench's leaderboard does. <Link to="/bench">Back to runs</Link>
      </p>
      <ErrorAlert error={error} />
      {!loaded && !error && <p className="muted">Loading…</p>}
      {loaded && (
        <>
          <section className="card">
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Runs compared">
              <DataTable
                testId="compare-table"
                className="scores"
                headers={['Run', 'Model', 'Status', 'Total', 'Quality', 'Semantic']}
              >
                {sorted.map((r) => (
                  <tr key={r.run.id}>
                    <td>
                      <Link to={`/bench/${r.run.id}`}>{r.run.name}</Link>
                    </td>
                    <td>{r.run.model_id}</td>
                    <td>
                      <StateBadge state={r.run.status} />
                    </td>
                    <td className="num">
                      <strong>{formatScore(r.total)}</strong>
                    </td>
                    <td className="num">{formatScore(r.quality)}</td>
                    <td className="num">{formatScore(r.semantic)}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
          </section>
          <section className="card">
            <h2>Per dimension</h2>
            {labels.length > 0 ? (
              <>
                <ScoreMatrix
                  label="Per-dimension means of the runs"
                  testId="compare-dimensions"
                  dimensions={labels.map((id, i) => ({ id, name: names[i]! }))}
                  columns={sorted.map((r) => ({ key: r.run.id, label: r.run.name, values: r.means }))}
                />
                <BarChart title="Per-dimension means, side by side" labels={names} series={series} max={1} />
              </>
            ) : (
              <p className="muted" data-testid="compare-no-scores">
                No scores yet: none of these runs has a scored clip. The chart appears as clips are evaluated.
              </p>
            )}
            {labels.length > 0 && rows.some((r) => r.means.size === 0) && (
              <p className="muted">
                No scores yet for{' '}
                {rows
                  .filter((r) => r.means.size === 0)
                  .map((r) => r.run.name)
                  .join(', ')}
                .
              </p>
            )}
          </section>
        </>
      )}
    </>
  );
}
