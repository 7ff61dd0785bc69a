/** Score and Rank: drag-and-drop uploads with progress, players, per-dimension charts, live state. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ScoreSession, VideoSummary } from '@vesta/sdk';
import { useMemo, useRef, useState } from 'react';
import type { DragEvent } from 'react';
import { formatMethod, formatScore, livePoll, useDimensionName, vesta } from './api';
import { DataTable, ErrorAlert, ScoreMatrix, StateBadge } from './ui';
import { BarChart } from './chart';

const FINAL = new Set(['scored', 'failed']);
const busy = (videos: VideoSummary[]) => videos.some((v) => !FINAL.has(v.state));

/** States in which a clip's bytes are stored and verified (the player can fetch them). */
const STORED = new Set(['queued', 'scoring', 'scored', 'failed']);

/** A player for a stored clip, streamed (with seeking) from `GET /api/v1/videos/{id}/content`. */
export function ClipPlayer(props: { videoId: string; label: string; width: number }) {
  return (
    <video
      src={vesta.videos.contentUrl(props.videoId)}
      controls
      muted
      preload="metadata"
      width={props.width}
      aria-label={`Player: ${props.label}`}
      data-testid="player"
    />
  );
}

function UploadBox(props: {
  label: string;
  onFile: (file: File, onProgress: (pct: number) => void) => Promise<unknown>;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [pct, setPct] = useState<number | null>(null);
  const [failed, setFailed] = useState<{ file: string; error: unknown } | null>(null);
  const start = (file: File | undefined) => {
    if (!file) return;
    setFailed(null);
    setPct(0);
    props
      .onFile(file, setPct)
      .catch((error: unknown) => setFailed({ file: file.name, error }))
      .finally(() => setPct(null));
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    start(e.dataTransfer.files[0]);
  };
  return (
    <div>
      <div
        className={`drop ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>Drop a video clip here, or</p>
        <button type="button" onClick={() => input.current?.click()} disabled={pct !== null}>
          {props.label}
        </button>
        <input
          ref={input}
          type="file"
          accept="video/*"
          className="sr-only"
          aria-label={props.label}
          data-testid="file-input"
          onChange={(e) => {
            start(e.currentTarget.files?.[0]);
            e.currentTarget.value = '';
          }}
        />
      </div>
      {pct !== null && (
        <p className="progress-cell">
          <progress max={100} value={pct} aria-label="Upload progress">
            {pct}%
          </progress>
          <span>{pct < 100 ? `Uploading… ${pct}%` : 'Checking the clip…'}</span>
        </p>
      )}
      {failed && <ErrorAlert error={failed.error} context={`Could not upload ${failed.file}`} />}
    </div>
  );
}

function VideoCard({ video }: { video: VideoSummary }) {
  const dimensionName = useDimensionName();
  const labels = useMemo(
    () => video.scores.map((s) => `${dimensionName(s.dimension)} (${s.method})`),
    [video.scores, dimensionName],
  );
  const series = useMemo(
    () => [{ label: 'score', values: video.scores.map((s) => s.value) }],
    [video.scores],
  );
  return (
    <article className="card video" data-testid="video-card">
      <header>
        <h3>{video.fileName}</h3>
        <StateBadge state={video.state} />
      </header>
      {video.prompt !== null && video.prompt !== '' && <p className="muted">Prompt: {video.prompt}</p>}
      <div className="video-body">
        <div>
          {STORED.has(video.state) && video.confirmedAt !== null && (
            <ClipPlayer videoId={video.videoId} label={video.fileName} width={320} />
          )}
          <ErrorAlert error={video.error} />
          {!FINAL.has(video.state) && <p className="muted">Scoring… the scores appear here.</p>}
        </div>
        {video.scores.length > 0 && (
          <div>
            <BarChart title={`Scores of ${video.fileName}`} labels={labels} series={series} max={1} />
            <DataTable headers={['Dimension', 'Score', 'Method']}>
              {video.scores.map((s) => (
                <tr key={s.dimension}>
                  <td>{dimensionName(s.dimension)}</td>
                  <td className="num">{formatScore(s.value)}</td>
                  <td>{formatMethod(s.method, s.methodVersion)}</td>
                </tr>
              ))}
            </DataTable>
          </div>
        )}
      </div>
      {video.failures.length > 0 && (
        <ul className="muted">
          {video.failures.map((f) => (
            <li key={f.dimension}>{`${dimensionName(f.dimension)}: ${f.detail} (${f.code})`}</li>
          ))}
        </ul>
      )}
    </article>
  );
}

export function ScorePage() {
  const qc = useQueryClient();
  const [prompt, setPrompt] = useState('');
  const session = useQuery({
    queryKey: ['score'],
    queryFn: () => vesta.score.getOrCreate(),
    refetchInterval: livePoll<ScoreSession>((s) => busy(s.videos)),
  });
  const reset = useMutation({
    mutationFn: () => vesta.score.reset(),
    onSuccess: (s) => qc.setQueryData(['score'], s),
  });
  return (
    <>
      <h1>Score</h1>
      <p className="muted">Upload a clip and its prompt; Vesta scores it on every dimension that applies.</p>
      <section className="card">
        <label>
          Prompt the clip was made from
          <input
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            placeholder="a cat surfing a wave"
          />
        </label>
        <UploadBox
          label="Choose a clip"
          onFile={async (file, onProgress) => {
            const r = await vesta.score.upload(file, {
              prompt,
              onProgress: (p) => {
                if (p.phase === 'upload' && p.total) onProgress(Math.round((100 * p.loaded) / p.total));
              },
            });
            await qc.invalidateQueries({ queryKey: ['score'] });
            return r;
          }}
        />
        <button
          type="button"
          className="secondary"
          onClick={() => {
            if (window.confirm('Reset the Score session? Its clips and scores are removed.')) reset.mutate();
          }}
        >
          Reset session
        </button>
      </section>
      <ErrorAlert error={session.error} />
      {session.data?.videos.length === 0 && (
        <p className="muted">No clips in this session yet: drop one above to see its scores.</p>
      )}
      <div className="stack">
        {session.data?.videos
          .slice()
          .reverse()
          .map((v) => (
            <VideoCard key={v.videoId} video={v} />
          ))}
      </div>
    </>
  );
}

export function RankPage() {
  const qc = useQueryClient();
  const [prompt, setPrompt] = useState('');
  const session = useQuery({
    queryKey: ['rank'],
    queryFn: () => vesta.rank.getOrCreate(),
    refetchInterval: livePoll<Awaited<ReturnType<typeof vesta.rank.getOrCreate>>>((s) => busy(s.videos)),
  });
  const ranked = useQuery({
    queryKey: ['rank', 'ranked', session.data?.runId],
    queryFn: () => vesta.rank.getRanked(session.data!.runId),
    enabled: session.data !== undefined,
    refetchInterval: livePoll<Awaited<ReturnType<typeof vesta.rank.getRanked>>>((l) =>
      l.entries.some((e) => !FINAL.has(e.state)),
    ),
  });
  const reset = useMutation({
    mutationFn: () => vesta.rank.reset(),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['rank'] }),
  });
  const dimensionName = useDimensionName();
  const locked = session.data?.promptLocked ? session.data.prompt : null;
  const entries = ranked.data?.entries ?? [];
  const { dims, series } = useMemo(() => {
    const list = ranked.data?.entries ?? [];
    const dimensions = [...new Set(list.flatMap((e) => e.scores.map((s) => s.dimension)))];
    return {
      dims: dimensions,
      series: list.map((e) => ({
        label: `#${e.rank ?? '–'} ${e.fileName}`,
        values: dimensions.map((d) => e.scores.find((s) => s.dimension === d)?.value ?? null),
      })),
    };
  }, [ranked.data]);
  const dimLabels = useMemo(() => dims.map(dimensionName), [dims, dimensionName]);
  return (
    <>
      <h1>Rank</h1>
      <p className="muted">Upload candidate clips made for one prompt; Vesta ranks them.</p>
      <section className="card">
        {locked !== null ? (
          <p>
            Locked prompt: <strong data-testid="locked-prompt">{locked}</strong>
          </p>
        ) : (
          <label>
            Prompt (locked by the first upload)
            <input
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
              placeholder="a red car at night"
            />
          </label>
        )}
        <UploadBox
          label="Choose a candidate"
          onFile={async (file, onProgress) => {
            const r = await vesta.rank.upload(file, {
              ...(locked === null ? { prompt } : {}),
              onProgress: (p) => {
                if (p.phase === 'upload' && p.total) onProgress(Math.round((100 * p.loaded) / p.total));
              },
            });
            await qc.invalidateQueries({ queryKey: ['rank'] });
            return r;
          }}
        />
        <button
          type="button"
          className="secondary"
          onClick={() => {
            if (window.confirm('Reset the Rank session? Its candidates are removed and the prompt unlocked.'))
              reset.mutate();
          }}
        >
          Reset session
        </button>
      </section>
      <ErrorAlert error={session.error ?? ranked.error} />
      <section className="card">
        <h2>Leaderboard</h2>
        {entries.length === 0 ? (
          <p className="muted">No candidates yet: upload two or more clips made for the prompt.</p>
        ) : (
          <>
            <div className="muted explain">
              Overall puts each dimension on VBench's leaderboard scale and takes their weighted mean; higher
              is better, and a tie goes to the clip uploaded first. Each candidate is a single clip, so its
              scores have no confidence interval (compare generators with Bench runs for that).{' '}
              {ranked.data && (
                <details className="inline">
                  <summary>Exact formula</summary>
                  <code>{ranked.data.formula}</code>
                </details>
              )}
            </div>
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Leaderboard table">
              <DataTable testId="leaderboard" className="scores" headers={['Rank', 'Candidate', 'Overall']}>
                {entries.map((e) => (
                  <tr key={e.videoId} data-video-id={e.videoId}>
                    <td>{e.rank ?? '—'}</td>
                    <td className="name">{e.fileName}</td>
                    <td className="num">
                      {e.state === 'scored' ? (
                        <strong>{formatScore(e.overall)}</strong>
                      ) : (
                        <StateBadge state={e.state} />
                      )}
                    </td>
                  </tr>
                ))}
              </DataTable>
            </div>
          </>
        )}
        {dims.length > 0 && (
          <>
            <h3 className="sub">Per dimension</h3>
            <ScoreMatrix
              label="Per-dimension scores of the candidates"
              testId="rank-dimensions"
              dimensions={dims.map((id) => ({ id, name: dimensionName(id) }))}
              columns={entries.map((e) => ({
                key: e.videoId,
                label: `#${e.rank ?? '–'} ${e.fileName}`,
                values: new Map(e.scores.map((s) => [s.dimension, s.value])),
              }))}
            />
            <BarChart title="Candidates per dimension" labels={dimLabels} series={series} max={1} />
          </>
        )}
      </section>
      {entries.some((e) => STORED.has(e.state) && e.state !== 'failed') && (
        <section className="card">
          <h2>Candidates side by side</h2>
          <div className="players">
            {entries
              // A failed candidate may have been refused at confirm (no bytes kept): no player.
              .filter((e) => STORED.has(e.state) && e.state !== 'failed')
              .map((e) => (
                <figure key={e.videoId}>
                  <ClipPlayer videoId={e.videoId} label={e.fileName} width={300} />
                  <figcaption>
                    #{e.rank ?? '–'} {e.fileName}
                  </figcaption>
                </figure>
              ))}
          </div>
        </section>
      )}
    </>
  );
}
