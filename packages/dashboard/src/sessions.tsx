/** Score and Rank: drag-and-drop uploads with progress, players, per-dimension charts, live state. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiConnectionError, ApiTimeoutError } from '@vesta/sdk';
import type { ScoreSession, VideoSummary } from '@vesta/sdk';
import { useMemo, useRef, useState } from 'react';
import type { DragEvent } from 'react';
import { formatMethod, formatScore, livePoll, useDimensionName, vesta } from './api';
import { DataTable, ErrorAlert, PromptNotice, ScoreMatrix, StateBadge } from './ui';
import { BarChart } from './chart';

const FINAL = new Set(['scored', 'failed']);
const busy = (videos: VideoSummary[]) => videos.some((v) => !FINAL.has(v.state));

/** States in which a clip's bytes are stored and verified (the player can fetch them). */
const STORED = new Set(['queued', 'scoring', 'scored', 'failed']);

/**
 * A player for a stored clip, streamed (with seeking) from `GET /api/v1/videos/{id}/content`.
 * A GIF is no video to the browser: it is shown as an animated image with a Pause/Play button.
 * When the type is not known (a Bench clip), a clip the video element cannot open is tried as an
 * image; one that neither can show says so in words, with a download link.
 */
export function ClipPlayer(props: { videoId: string; label: string; width: number; contentType?: string }) {
  const { videoId, label, width, contentType } = props;
  const [kind, setKind] = useState<'video' | 'image' | 'none'>(
    contentType === 'image/gif' ? 'image' : 'video',
  );
  const src = vesta.videos.contentUrl(videoId);
  if (kind === 'image')
    return <GifPlayer src={src} label={label} width={width} onError={() => setKind('none')} />;
  if (kind === 'none')
    return (
      <p className="muted player-none" data-testid="player-none">
        This browser cannot play this clip's format
        {contentType ? ` (${contentType})` : ''}; its scores are not affected.{' '}
        <a href={src} download>
          Download the clip
        </a>
      </p>
    );
  return (
    <video
      src={src}
      controls
      muted
      preload="metadata"
      width={width}
      aria-label={`Player: ${label}`}
      data-testid="player"
      onError={() => setKind(contentType === undefined ? 'image' : 'none')}
    />
  );
}

/**
 * An animated GIF with the player's intent: it plays on its own, Pause freezes the frame shown
 * (drawn onto a canvas), Play lets it run again.
 */
function GifPlayer(props: { src: string; label: string; width: number; onError: () => void }) {
  const img = useRef<HTMLImageElement>(null);
  const still = useRef<HTMLCanvasElement>(null);
  const [paused, setPaused] = useState(false);
  const pause = () => {
    const i = img.current;
    const c = still.current;
    if (!i || !c || !i.complete || i.naturalWidth === 0) return;
    c.width = i.naturalWidth;
    c.height = i.naturalHeight;
    c.getContext('2d')?.drawImage(i, 0, 0);
    setPaused(true);
  };
  return (
    <div className="gif-player" data-testid="gif-player" style={{ maxWidth: props.width }}>
      <img
        ref={img}
        src={props.src}
        alt={`Animated GIF: ${props.label}`}
        hidden={paused}
        data-testid="player"
        onError={props.onError}
      />
      <canvas ref={still} hidden={!paused} role="img" aria-label={`Paused GIF: ${props.label}`} />
      <button
        type="button"
        className="secondary small"
        aria-label={`${paused ? 'Play' : 'Pause'} ${props.label}`}
        onClick={paused ? () => setPaused(false) : pause}
      >
        {paused ? 'Play' : 'Pause'}
      </button>
    </div>
  );
}

/** The server's limit on a prompt (MAX_PROMPT_LENGTH), checked here before a file is chosen. */
export const MAX_PROMPT_LENGTH = 2000;

/** Why no file may be chosen yet, in words: a hint (nothing written yet) or an error (too long). */
type Blocked = { text: string; error: boolean } | null;

/** What stands in the way of an upload with this prompt; null when it is fine. */
export function promptProblem(prompt: string, required: boolean): Blocked {
  if (required && prompt.trim() === '')
    return { text: 'Write the prompt the clip was made from, then choose the file.', error: false };
  if (prompt.length > MAX_PROMPT_LENGTH)
    return {
      text: `The prompt is ${prompt.length.toLocaleString('en')} characters long; at most ${MAX_PROMPT_LENGTH.toLocaleString('en')} are allowed. Shorten it before choosing a file.`,
      error: true,
    };
  return null;
}

/**
 * An upload error in words. A PUT that never reached the server (refused, blocked by the page's
 * policy, connection dropped) or stalled says so plainly: the SDK's message names the upload URL
 * with its token, which is of no use to a reader.
 */
function uploadFailure(error: unknown): unknown {
  if (error instanceof ApiConnectionError)
    return `The file could not be sent to the server at ${new URL(error.url, window.location.href).origin}: the connection failed or the browser refused it. Nothing was stored or scored; check the connection and choose the file again.`;
  if (error instanceof ApiTimeoutError)
    return 'The upload stopped moving and was given up. Nothing was stored or scored; check the connection and choose the file again.';
  return error;
}

function UploadBox(props: {
  label: string;
  onFile: (file: File, onProgress: (pct: number) => void) => Promise<unknown>;
  /** Why no file may be chosen now (the prompt is too long, or missing). */
  blocked?: Blocked;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [pct, setPct] = useState<number | null>(null);
  const [failed, setFailed] = useState<{ file: string; error: unknown } | null>(null);
  const blocked = props.blocked ?? null;
  const start = (file: File | undefined) => {
    if (!file || blocked !== null) return;
    setFailed(null);
    setPct(0);
    props
      .onFile(file, setPct)
      .catch((error: unknown) => setFailed({ file: file.name, error: uploadFailure(error) }))
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
        <p>Drop a clip (a video or a GIF) here, or</p>
        <button
          type="button"
          onClick={() => input.current?.click()}
          disabled={pct !== null || blocked !== null}
        >
          {props.label}
        </button>
        <input
          ref={input}
          type="file"
          accept="video/*,image/gif"
          disabled={blocked !== null}
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
      {blocked !== null &&
        (blocked.error ? (
          <ErrorAlert error={blocked.text} />
        ) : (
          <p className="muted" data-testid="upload-blocked">
            {blocked.text}
          </p>
        ))}
    </div>
  );
}

/** What an unfinished clip is waiting for, in words (no clip is "scoring" before its bytes arrive). */
const WAITING: Record<string, string> = {
  awaiting_upload:
    'Waiting for the file to arrive: nothing is scored until it does. An upload that stopped is dropped when its link expires.',
  uploaded: 'The file arrived; checking it before scoring…',
  queued: 'Waiting for a scoring slot… the scores appear here.',
  scoring: 'Scoring… the scores appear here.',
};

/**
 * Runs one upload of the page. When it fails, the clip it created (if any: still waiting for its
 * bytes, or refused when its bytes were checked) is hidden at once (`onOrphan`) and removed from
 * the session (`DELETE …/videos/{id}`), since the error above already says what happened: no card
 * is left claiming the clip is on its way, now or after a reload.
 */
async function trackUpload<T>(
  known: VideoSummary[] | undefined,
  reread: () => Promise<{ runId: string; videos: VideoSummary[] }>,
  run: () => Promise<T>,
  onOrphan: (ids: string[]) => void,
  remove: (runId: string, videoId: string) => Promise<void>,
): Promise<T> {
  const before = new Set((known ?? []).map((v) => v.videoId));
  try {
    return await run();
  } catch (error) {
    const after = await reread().catch(() => null);
    if (after) {
      const orphans = after.videos
        .filter((v) => !before.has(v.videoId))
        .filter((v) => v.state === 'awaiting_upload' || (v.state === 'failed' && v.confirmedAt === null))
        .map((v) => v.videoId);
      onOrphan(orphans);
      // Best effort: what cannot be removed now stays hidden here and expires on the server.
      await Promise.allSettled(orphans.map((id) => remove(after.runId, id)));
    }
    throw error;
  }
}

/** A "Remove" button that asks first (one clip of a Score session, or a Rank candidate). */
function RemoveButton(props: { what: string; name: string; onRemove: () => void; busy: boolean }) {
  return (
    <button
      type="button"
      className="secondary small"
      aria-label={`Remove ${props.what} ${props.name}`}
      disabled={props.busy}
      onClick={() => {
        if (window.confirm(`Remove the ${props.what} ${props.name}? Its scores and file are deleted.`))
          props.onRemove();
      }}
    >
      {props.busy ? 'Removing…' : 'Remove'}
    </button>
  );
}

function VideoCard({
  video,
  onRemove,
  removing = false,
}: {
  video: VideoSummary;
  onRemove?: () => void;
  removing?: boolean;
}) {
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
        {onRemove && <RemoveButton what="clip" name={video.fileName} onRemove={onRemove} busy={removing} />}
      </header>
      {video.prompt !== null && video.prompt !== '' && <p className="muted">Prompt: {video.prompt}</p>}
      <PromptNotice notice={video.promptNotice} />
      <div className="video-body">
        <div>
          {STORED.has(video.state) && video.confirmedAt !== null && (
            <ClipPlayer
              videoId={video.videoId}
              label={video.fileName}
              width={320}
              contentType={video.contentType}
            />
          )}
          <ErrorAlert error={video.error} />
          {!FINAL.has(video.state) && <p className="muted">{WAITING[video.state]}</p>}
        </div>
        {video.scores.length > 0 && (
          <div>
            <BarChart
              title={`Scores of ${video.fileName}`}
              labels={labels}
              series={series}
              max={1}
              valueAxis="Score (0 to 1, higher is better)"
            />
            <DataTable
              className="fit"
              label={`Scores of ${video.fileName}`}
              headers={['Dimension', 'Score', 'Method']}
            >
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
  // Clips of uploads from this page that failed before their bytes arrived: not shown.
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
  const session = useQuery({
    queryKey: ['score'],
    queryFn: () => vesta.score.getOrCreate(),
    refetchInterval: livePoll<ScoreSession>((s) => busy(s.videos.filter((v) => !dropped.has(v.videoId)))),
  });
  const videos = (session.data?.videos ?? []).filter((v) => !dropped.has(v.videoId));
  const reset = useMutation({
    mutationFn: () => vesta.score.reset(),
    onSuccess: (s) => qc.setQueryData(['score'], s),
  });
  const remove = useMutation({
    mutationFn: (videoId: string) => vesta.score.removeVideo(videoId, { runId: session.data?.runId }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['score'] }),
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
          blocked={promptProblem(prompt, true)}
          onFile={async (file, onProgress) => {
            const r = await trackUpload(
              session.data?.videos,
              () => vesta.score.getOrCreate(),
              () =>
                vesta.score.upload(file, {
                  prompt,
                  onProgress: (p) => {
                    if (p.phase === 'upload' && p.total) onProgress(Math.round((100 * p.loaded) / p.total));
                  },
                }),
              (ids) => setDropped((d) => new Set([...d, ...ids])),
              (runId, id) => vesta.score.removeVideo(id, { runId }),
            );
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
      <ErrorAlert error={session.error ?? remove.error} />
      {session.data !== undefined && videos.length === 0 && (
        <p className="muted">No clips in this session yet: drop one above to see its scores.</p>
      )}
      <div className="stack">
        {videos
          .slice()
          .reverse()
          .map((v) => (
            <VideoCard
              key={v.videoId}
              video={v}
              onRemove={() => remove.mutate(v.videoId)}
              removing={remove.isPending && remove.variables === v.videoId}
            />
          ))}
      </div>
    </>
  );
}

/** A candidate's place in words: `#2`, or why it has none yet. */
export function rankLabel(rank: number | null | undefined, state: string): string {
  if (rank !== null && rank !== undefined) return `#${rank}`;
  return state === 'failed' ? 'not ranked (failed)' : 'not ranked yet';
}

export function RankPage() {
  const qc = useQueryClient();
  const [prompt, setPrompt] = useState('');
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
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
  const remove = useMutation({
    mutationFn: (videoId: string) => vesta.rank.removeVideo(videoId, { runId: session.data?.runId }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['rank'] }),
  });
  const dimensionName = useDimensionName();
  const locked = session.data?.promptLocked ? session.data.prompt : null;
  const entries = useMemo(
    () => (ranked.data?.entries ?? []).filter((e) => !dropped.has(e.videoId)),
    [ranked.data, dropped],
  );
  const contentTypes = new Map((session.data?.videos ?? []).map((v) => [v.videoId, v.contentType]));
  const { dims, series } = useMemo(() => {
    const list = entries;
    const dimensions = [...new Set(list.flatMap((e) => e.scores.map((s) => s.dimension)))];
    return {
      dims: dimensions,
      series: list.map((e) => ({
        label: `${rankLabel(e.rank, e.state)} ${e.fileName}`,
        values: dimensions.map((d) => e.scores.find((s) => s.dimension === d)?.value ?? null),
      })),
    };
  }, [entries]);
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
          blocked={locked === null ? promptProblem(prompt, true) : null}
          onFile={async (file, onProgress) => {
            const r = await trackUpload(
              session.data?.videos,
              () => vesta.rank.getOrCreate(),
              () =>
                vesta.rank.upload(file, {
                  ...(locked === null ? { prompt } : {}),
                  onProgress: (p) => {
                    if (p.phase === 'upload' && p.total) onProgress(Math.round((100 * p.loaded) / p.total));
                  },
                }),
              (ids) => setDropped((d) => new Set([...d, ...ids])),
              (runId, id) => vesta.rank.removeVideo(id, { runId }),
            );
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
      <ErrorAlert error={session.error ?? ranked.error ?? remove.error} />
      <section className="card">
        <h2>Leaderboard</h2>
        {entries.length === 0 ? (
          <p className="muted">No candidates yet: upload two or more clips made for the prompt.</p>
        ) : (
          <>
            <PromptNotice notice={ranked.data?.promptNotice} />
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
              <DataTable
                bare
                testId="leaderboard"
                className="scores"
                headers={['Rank', 'Candidate', 'Overall', <span className="sr-only">Remove</span>]}
              >
                {entries.map((e) => (
                  <tr key={e.videoId} data-video-id={e.videoId}>
                    <td>{e.rank ?? <span className="muted">{rankLabel(e.rank, e.state)}</span>}</td>
                    <td className="name">{e.fileName}</td>
                    <td className="num">
                      {e.state === 'scored' ? (
                        <strong>{formatScore(e.overall)}</strong>
                      ) : (
                        <StateBadge state={e.state} />
                      )}
                    </td>
                    <td>
                      <RemoveButton
                        what="candidate"
                        name={e.fileName}
                        onRemove={() => remove.mutate(e.videoId)}
                        busy={remove.isPending && remove.variables === e.videoId}
                      />
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
                label: `${rankLabel(e.rank, e.state)} ${e.fileName}`,
                values: new Map(e.scores.map((s) => [s.dimension, s.value])),
              }))}
            />
            <BarChart
              title="Candidates per dimension"
              labels={dimLabels}
              series={series}
              max={1}
              valueAxis="Score (0 to 1, higher is better)"
            />
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
                  <ClipPlayer
                    videoId={e.videoId}
                    label={e.fileName}
                    width={300}
                    contentType={contentTypes.get(e.videoId)}
                  />
                  <figcaption>
                    {rankLabel(e.rank, e.state)} {e.fileName}
                  </figcaption>
                </figure>
              ))}
          </div>
        </section>
      )}
    </>
  );
}
