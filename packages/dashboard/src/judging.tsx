/**
 * Judging (issue #23): the campaigns list, the creation form (from the Rank session or Bench
 * runs), a campaign's page (judges and invites, progress, close / reveal, export) and the judging
 * page (two clips side by side, answers from
 * the keyboard, the next pair preloaded).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { JudgingAnswer, JudgingCampaign, JudgingOffer } from '@vesta/sdk';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { field, formatDate, livePoll, vesta } from './api';
import { JudgeStage } from './judge-player';
import type { StagePair } from './judge-player';
import { useAccount } from './shell';
import { DataTable, ErrorAlert, StateBadge } from './ui';
import './judging.css';

const QUESTIONS: Array<{
  kind: 'overall' | 'prompt_fit' | 'motion' | 'visual_quality' | 'custom';
  label: string;
}> = [
  { kind: 'overall', label: 'Which clip is better overall for this prompt?' },
  { kind: 'prompt_fit', label: 'Which clip follows the prompt better?' },
  { kind: 'motion', label: 'Which clip has better motion?' },
  { kind: 'visual_quality', label: 'Which clip looks better (visual quality)?' },
  { kind: 'custom', label: 'A question of your own…' },
];

const ANSWERS: Array<{ answer: JudgingAnswer; label: string; keys: string[]; shown: string }> = [
  { answer: 'left', label: 'Left is better', keys: ['ArrowLeft', '1'], shown: '← / 1' },
  { answer: 'right', label: 'Right is better', keys: ['ArrowRight', '2'], shown: '→ / 2' },
  { answer: 'tie', label: 'Tie', keys: ['ArrowDown', '3', 't'], shown: '↓ / 3' },
  { answer: 'both_bad', label: 'Both bad', keys: ['4', 'b'], shown: '4 / B' },
  { answer: 'skip', label: 'Skip', keys: ['5', 's'], shown: '5 / S' },
];

function CampaignStatus({ c }: { c: JudgingCampaign }) {
  return <StateBadge state={c.status === 'open' ? 'running' : 'completed'} label={c.status} />;
}

/**
 * The votes the ratings are fitted from: each decided vote is one item's win, each tie one tie of
 * each of its two items. The answer's `votes` also counts both_bad and skip.
 */
function ratedVotes(r: { items: ReadonlyArray<{ wins: number; ties: number }> }): number {
  return r.items.reduce((n, i) => n + i.wins + i.ties / 2, 0);
}

export function JudgingListPage() {
  const campaigns = useQuery({ queryKey: ['judging'], queryFn: () => vesta.judging.list() });
  const items = campaigns.data?.items ?? [];
  return (
    <>
      <div className="title-row">
        <h1>Judging</h1>
        <Link className="button" to="/judging/new">
          New campaign
        </Link>
      </div>
      <ErrorAlert error={campaigns.error} />
      {campaigns.data && items.length === 0 ? (
        <section className="card empty">
          <h2>No campaigns yet</h2>
          <p>
            A judging campaign asks people which of two clips of the same prompt is better, without telling
            them which model made which. Their votes become ratings with intervals, and show how well each
            automated dimension agrees with your team.
          </p>
          <p>
            Make one from two or more finished <Link to="/bench">Bench runs</Link> or from the candidates of
            your <Link to="/rank">Rank</Link> session, then invite judges.
          </p>
        </section>
      ) : (
        <section className="card">
          <DataTable
            label="Campaigns"
            cards
            testId="campaigns-table"
            headers={['Name', 'Your role', 'Status', 'Votes', 'Pairs complete', 'Created']}
          >
            {items.map((c) => (
              <tr key={c.id}>
                <td>
                  <Link to={`/judging/${c.id}`}>{c.name}</Link>
                </td>
                <td>{c.role === 'owner' ? (c.isJudge ? 'owner, judge' : 'owner') : 'judge'}</td>
                <td>
                  <CampaignStatus c={c} />
                </td>
                <td className="num">{c.progress.votes}</td>
                <td className="num">
                  {c.progress.pairsComplete}/{c.progress.pairs}
                </td>
                <td>{formatDate(c.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      )}
    </>
  );
}

export function JudgingCreatePage() {
  const navigate = useNavigate();
  const [source, setSource] = useState<'bench' | 'rank'>('bench');
  const [question, setQuestion] = useState<(typeof QUESTIONS)[number]['kind']>('overall');
  const [runs, setRuns] = useState<Set<string>>(new Set());
  const benchRuns = useQuery({
    queryKey: ['bench', 'list', 'judging'],
    queryFn: () => vesta.bench.listPage({ page: 1, limit: 100 }),
  });
  const rank = useQuery({ queryKey: ['rank'], queryFn: () => vesta.rank.getOrCreate() });
  const create = useMutation({
    mutationFn: (body: Parameters<typeof vesta.judging.create>[0]) => vesta.judging.create(body),
    onSuccess: (c) => navigate(`/judging/${c.id}`),
  });
  const finished = (benchRuns.data?.items ?? []).filter((r) => r.status === 'completed');
  const rankClips =
    rank.data?.videos.filter((v) => v.state === 'scored' || v.state === 'scoring' || v.state === 'queued') ??
    [];
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const votesPerPair = field(form, 'votesPerPair');
    const text = field(form, 'questionText').trim();
    create.mutate({
      name: field(form, 'name'),
      question: question === 'custom' ? { kind: 'custom', text } : { kind: question },
      ...(source === 'bench' ? { benchRunIds: [...runs] } : { rankSessionId: rank.data?.runId ?? '' }),
      ...(votesPerPair ? { votesPerPair: Number(votesPerPair) } : {}),
    });
  };
  return (
    <>
      <h1>New judging campaign</h1>
      <form className="card judging-form" onSubmit={onSubmit}>
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="v2 against v3, overall" />
        </label>
        <fieldset>
          <legend>Clips to judge</legend>
          <label className="check">
            <input
              type="radio"
              name="source"
              checked={source === 'bench'}
              onChange={() => setSource('bench')}
            />
            <span>Bench runs (two or more, on one prompt suite)</span>
          </label>
          <label className="check">
            <input
              type="radio"
              name="source"
              checked={source === 'rank'}
              onChange={() => setSource('rank')}
            />
            <span>The candidates of my Rank session</span>
          </label>
          {source === 'bench' ? (
            finished.length === 0 ? (
              <p className="muted">No finished Bench runs yet. Runs that completed appear here.</p>
            ) : (
              <div className="judging-pick" role="group" aria-label="Bench runs to judge">
                {finished.map((r) => (
                  <label key={r.id} className="check">
                    <input
                      type="checkbox"
                      aria-label={`Judge ${r.name}`}
                      checked={runs.has(r.id)}
                      onChange={() =>
                        setRuns((s) => {
                          const n = new Set(s);
                          if (n.has(r.id)) n.delete(r.id);
                          else n.add(r.id);
                          return n;
                        })
                      }
                    />
                    <span>
                      {r.name}{' '}
                      <span className="muted">
                        ({r.model_id}, {formatDate(r.created_at)})
                      </span>
                    </span>
                  </label>
                ))}
              </div>
            )
          ) : (
            <p className="muted" data-testid="rank-source">
              {rank.data
                ? rankClips.length >= 2
                  ? `${rankClips.length} candidates for “${rank.data.prompt ?? ''}”.`
                  : 'Your Rank session has fewer than two candidates: upload some on the Rank page first.'
                : 'Loading…'}
            </p>
          )}
        </fieldset>
        <label>
          Question
          <select
            name="question"
            value={question}
            onChange={(e) => setQuestion(e.target.value as typeof question)}
          >
            {QUESTIONS.map((q) => (
              <option key={q.kind} value={q.kind}>
                {q.label}
              </option>
            ))}
          </select>
        </label>
        {question === 'custom' && (
          <label>
            Your question
            <input
              name="questionText"
              required
              maxLength={300}
              placeholder="Which clip would you show a customer?"
            />
          </label>
        )}
        <label>
          Votes per pair (optional; each judge answers a pair once, so at most your number of judges)
          <input name="votesPerPair" type="number" min={1} max={50} placeholder="3" />
        </label>
        <ErrorAlert error={create.error} context="Could not create the campaign" />
        <button type="submit" disabled={create.isPending || (source === 'bench' && runs.size < 2)}>
          Create campaign
        </button>
      </form>
    </>
  );
}

function download(name: string, text: string, type: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
}

function JudgesCard({ c }: { c: JudgingCampaign }) {
  const qc = useQueryClient();
  const account = useAccount();
  const judges = useQuery({
    queryKey: ['judging', c.id, 'judges'],
    queryFn: () => vesta.judging.judges(c.id),
  });
  const [invite, setInvite] = useState<{ email: string; url: string } | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['judging', c.id] });
  };
  const add = useMutation({
    mutationFn: (who: { email: string } | { userName: string }) => vesta.judging.addJudge(c.id, who),
    onSuccess: (added, who) => {
      setInvite(added.invite && 'email' in who ? { email: who.email, url: added.invite.url } : null);
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (judgeId: string) => vesta.judging.removeJudge(c.id, judgeId),
    onSuccess: refresh,
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const who = field(new FormData(e.currentTarget), 'who').trim();
    add.mutate(who.includes('@') ? { email: who } : { userName: who });
    e.currentTarget.reset();
  };
  const items = judges.data?.items ?? [];
  return (
    <section className="card">
      <h2>Judges</h2>
      <ErrorAlert error={judges.error} />
      <DataTable
        label="Judges"
        cards
        testId="judges-table"
        headers={['Judge', 'Who', 'Status', 'Votes', '']}
        rows={items.length}
        empty="No judges yet."
      >
        {items.map((j) => (
          <tr key={j.id}>
            <td>{j.pseudonym}</td>
            <td>{j.email ?? j.userName ?? '—'}</td>
            <td>
              <StateBadge
                state={j.status === 'active' ? 'completed' : j.status === 'invited' ? 'queued' : 'cancelled'}
                label={j.status}
              />
            </td>
            <td className="num">{j.votes}</td>
            <td>
              {j.status !== 'removed' && c.status === 'open' && (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => remove.mutate(j.id)}
                  aria-label={`Remove ${j.pseudonym}`}
                >
                  Remove
                </button>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {c.status === 'open' && (
        <form className="judge-add" onSubmit={onSubmit}>
          <label>
            Add a judge (email or user name)
            <input name="who" required placeholder="ana@example.com" />
          </label>
          <button type="submit" disabled={add.isPending}>
            Add judge
          </button>
          {!c.isJudge && (
            <button type="button" className="secondary" onClick={() => add.mutate({ email: account.email })}>
              Judge it myself too
            </button>
          )}
        </form>
      )}
      <ErrorAlert error={add.error} context="Could not add the judge" />
      <ErrorAlert error={remove.error} context="Could not remove the judge" />
      {invite && (
        <div className="secret" role="status">
          <p>
            <strong>{invite.email}</strong> has no account yet. Send them this single-use link (shown once);
            they join as a judge of this campaign when they accept it:
          </p>
          <code data-testid="judge-invite-link">{invite.url}</code>
        </div>
      )}
      <p className="muted">
        Judges see only this campaign's clips, blinded: no model, run, file or score names until you close the
        campaign or reveal them. Removing a judge keeps their votes in the export but no longer counts them.
      </p>
    </section>
  );
}

export function JudgingCampaignPage() {
  const { id = '' } = useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const campaign = useQuery({
    queryKey: ['judging', id],
    queryFn: () => vesta.judging.get(id),
    refetchInterval: livePoll<JudgingCampaign>((c) => c.status === 'open'),
  });
  const [exportError, setExportError] = useState<unknown>(null);
  const act = useMutation({
    mutationFn: async (what: 'close' | 'reveal' | 'delete'): Promise<void> => {
      if (what === 'close') await vesta.judging.close(id);
      else if (what === 'reveal') await vesta.judging.reveal(id);
      else await vesta.judging.delete(id);
    },
    onSuccess: (_, what) => {
      if (what === 'delete') void navigate('/judging');
      else void qc.invalidateQueries({ queryKey: ['judging', id] });
    },
  });
  if (campaign.error) return <ErrorAlert error={campaign.error} context="Could not load the campaign" />;
  const c = campaign.data;
  if (!c) return <p className="muted">Loading…</p>;
  const p = c.progress;
  const owner = c.role === 'owner';
  const judging = c.status === 'open' && (c.role === 'judge' || c.isJudge);
  const exportAs = (format: 'csv' | 'jsonl') => {
    setExportError(null);
    vesta.judging
      .export(id, { format })
      .then((text) =>
        download(
          `${c.name.replace(/[^A-Za-z0-9._-]+/g, '_')}-votes.${format}`,
          text,
          format === 'csv' ? 'text/csv' : 'application/x-ndjson',
        ),
      )
      .catch((e: unknown) => setExportError(e));
  };
  return (
    <>
      <div className="title-row">
        <h1>{c.name}</h1>
        <CampaignStatus c={c} />
      </div>
      <section className="card">
        <p className="judging-question">{c.question.text}</p>
        <p className="run-progress">
          <progress
            max={Math.max(1, p.pairs)}
            value={p.pairsComplete}
            aria-label="Pairs with all their votes"
          />
          <span className="muted" data-testid="campaign-progress">
            {p.votes} {p.votes === 1 ? 'vote' : 'votes'} · {p.pairsComplete} of {p.pairs} pairs complete (
            {c.votesPerPair} {c.votesPerPair === 1 ? 'vote' : 'votes'} each) · {p.judges}{' '}
            {p.judges === 1 ? 'judge' : 'judges'} · your votes {p.yourVotes}
            {p.clipsDeleted > 0 && ` · ${p.clipsDeleted} of ${p.clips} clips deleted since`}
          </span>
        </p>
        {owner && c.status === 'open' && p.judges < c.votesPerPair && (
          <p className="notice" role="note" data-testid="too-few-judges">
            Each judge answers a pair once, so with {p.judges} {p.judges === 1 ? 'judge' : 'judges'} no pair
            can get its {c.votesPerPair} votes: add judges to complete the pairs. The ratings use whatever
            votes there are.
          </p>
        )}
        <p className="muted">
          Created {formatDate(c.createdAt)}
          {c.closedAt && ` · closed ${formatDate(c.closedAt)}`}
          {c.revealedAt && ` · names revealed ${formatDate(c.revealedAt)}`}
          {!c.namesVisible && ' · names hidden until the owner closes the campaign or reveals them'}
        </p>
        <div className="row">
          {judging && (
            <Link className="button" to={`/judging/${id}/judge`}>
              Start judging
            </Link>
          )}
          {owner && c.status === 'open' && (
            <button
              type="button"
              className="secondary"
              disabled={act.isPending}
              onClick={() => act.mutate('close')}
            >
              Close campaign
            </button>
          )}
          {owner && !c.revealedAt && c.status === 'open' && (
            <button
              type="button"
              className="secondary"
              disabled={act.isPending}
              onClick={() => act.mutate('reveal')}
            >
              Reveal names to judges
            </button>
          )}
          {owner && (
            <>
              <button type="button" className="secondary" onClick={() => exportAs('csv')}>
                Export votes (CSV)
              </button>
              <button type="button" className="secondary" onClick={() => exportAs('jsonl')}>
                Export votes (JSONL)
              </button>
              <button
                type="button"
                className="danger"
                disabled={act.isPending}
                onClick={() => {
                  if (window.confirm(`Delete “${c.name}” and all its votes?`)) act.mutate('delete');
                }}
              >
                Delete
              </button>
            </>
          )}
        </div>
        <ErrorAlert error={act.error} />
        <ErrorAlert error={exportError} context="Could not export the votes" />
      </section>
      {c.items && (
        <section className="card">
          <h2>What is judged</h2>
          <p className="muted">
            {c.source?.kind === 'rank' ? 'Candidates of a Rank session' : 'Bench runs'}, compared clip against
            clip on the same prompt:
          </p>
          <ul>
            {c.items.map((i) => (
              <li key={i.id}>
                {i.label} <span className="muted">({i.clips} clips)</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {/* A judge reads the ratings once the names are shown (closed or revealed), as the API allows. */}
      {(owner || c.namesVisible) && <ResultsCards c={c} owner={owner} />}
      {owner && <JudgesCard c={c} />}
    </>
  );
}

/** A missing figure: a dash and why it is missing. */
function Missing({ why }: { why: string }) {
  return (
    <span>
      — <span className="muted">({why})</span>
    </span>
  );
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const signed = (x: number) => (x >= 0 ? `+${x.toFixed(2)}` : `−${Math.abs(x).toFixed(2)}`);
/** Two decimals with a true minus sign (U+2212), not a hyphen; no sign on what rounds to zero. */
const fixed2 = (x: number) => {
  const s = Math.abs(x).toFixed(2);
  return x < 0 && s !== '0.00' ? `−${s}` : s;
};

/** A rating's 95 % interval on the axis shared by every item. */
function IntervalBar(props: { low: number; high: number; rating: number; min: number; max: number }) {
  const { low, high, rating, min, max } = props;
  const w = 120;
  const x = (v: number) => 4 + ((v - min) / (max - min || 1)) * (w - 8);
  return (
    <svg className="interval-bar" width={w} height={14} viewBox={`0 0 ${w} 14`} aria-hidden="true">
      <line className="axis" x1={4} x2={w - 4} y1={7} y2={7} />
      <line className="ci" x1={x(low)} x2={x(high)} y1={7} y2={7} />
      <circle className="dot" cx={x(rating)} cy={7} r={3.5} />
    </svg>
  );
}

/**
 * The results: ratings and the win matrix; for the owner also judge agreement and dimension
 * agreement (a judge's answer has no per-judge figures, and the agreement is the owner's).
 */
function ResultsCards({ c, owner }: { c: JudgingCampaign; owner: boolean }) {
  const open = c.status === 'open';
  const ratings = useQuery({
    queryKey: ['judging', c.id, 'ratings'],
    queryFn: () => vesta.judging.ratings(c.id),
    // Every 30 s while votes come in, not on each poll: a new vote makes the server recompute (a bootstrap).
    refetchInterval: open ? 30_000 : false,
  });
  const agreement = useQuery({
    queryKey: ['judging', c.id, 'agreement'],
    queryFn: () => vesta.judging.agreement(c.id),
    enabled: owner,
    // Every 30 s while votes come in, not on each poll: a new vote makes the server recompute (a bootstrap).
    refetchInterval: open ? 30_000 : false,
  });
  const r = ratings.data;
  const a = agreement.data;
  const labels = new Map((r?.items ?? []).map((i) => [i.item, i.label]));
  const ends = (r?.items ?? []).flatMap((i) => [i.ci95Low, i.ci95High, i.rating]);
  const known = ends.filter((v): v is number => v !== null);
  const min = known.length ? Math.min(...known) : 0;
  const max = known.length ? Math.max(...known) : 0;
  const cell = new Map((r?.winMatrix ?? []).map((m) => [`${m.item} ${m.opponent}`, m]));
  const fitted = a?.fitted ?? null;
  return (
    <>
      <section className="card" data-testid="judging-ratings">
        <h2>Ratings</h2>
        <ErrorAlert error={ratings.error} context="Could not load the ratings" />
        {r && (
          <>
            <p className="muted">
              Bradley–Terry with ties from {ratedVotes(r)} of {r.votes} {r.votes === 1 ? 'vote' : 'votes'} (
              <i>both bad</i> and <i>skip</i> do not enter the ratings)
              {r.votesExcluded > 0 && `; ${r.votesExcluded} of removed judges left out`}. A rating is a
              log-strength (mean 0); a difference of 1 means odds of e : 1. Intervals: 95 %, {r.resamples}{' '}
              bootstrap resamples over prompts. Best first.
            </p>
            <DataTable
              label="Ratings"
              cards
              testId="ratings-table"
              headers={['#', 'Item', 'Rating', '95 % interval', '', 'Votes', 'Wins', 'Losses', 'Ties']}
              rows={r.items.length}
              empty="No items."
            >
              {r.items.map((i, n) => (
                <tr key={i.item}>
                  <td className="num">{n + 1}</td>
                  <td>{i.label}</td>
                  <td className="num">
                    {i.rating === null ? <Missing why="no counted votes" /> : signed(i.rating)}
                  </td>
                  <td className="num">
                    {i.ci95Low === null || i.ci95High === null ? (
                      <Missing why="too few prompts to resample" />
                    ) : (
                      `${signed(i.ci95Low)} to ${signed(i.ci95High)}`
                    )}
                  </td>
                  <td>
                    {i.rating !== null && i.ci95Low !== null && i.ci95High !== null && (
                      <IntervalBar low={i.ci95Low} high={i.ci95High} rating={i.rating} min={min} max={max} />
                    )}
                  </td>
                  <td className="num">{i.votes}</td>
                  <td className="num">{i.wins}</td>
                  <td className="num">{i.losses}</td>
                  <td className="num">{i.ties}</td>
                </tr>
              ))}
            </DataTable>
            <h3>Wins, pair by pair</h3>
            <p className="muted">Each cell: the row's wins – losses – ties against the column.</p>
            <DataTable
              label="Win matrix"
              className="win-matrix"
              testId="win-matrix"
              headers={['', ...r.items.map((i) => i.label)]}
              rows={r.items.length}
              empty="No items."
            >
              {r.items.map((row) => (
                <tr key={row.item}>
                  <th scope="row">{row.label}</th>
                  {r.items.map((col) => {
                    if (col.item === row.item)
                      return (
                        <td key={col.item} className="num muted">
                          —
                        </td>
                      );
                    const m = cell.get(`${row.item} ${col.item}`);
                    if (!m)
                      return (
                        <td key={col.item} className="num">
                          <Missing why="never met" />
                        </td>
                      );
                    return (
                      <td
                        key={col.item}
                        className={`num ${m.wins > m.losses ? 'win-good' : m.wins < m.losses ? 'win-bad' : ''}`}
                        aria-label={`${labels.get(row.item) ?? row.item} against ${labels.get(col.item) ?? col.item}: ${m.wins} wins, ${m.losses} losses, ${m.ties} ties`}
                      >
                        {m.wins} – {m.losses} – {m.ties}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </DataTable>
            {owner && (
              <>
                <h3>Judge agreement</h3>
                <p className="muted">
                  Agreement: the share of a judge's decided votes that agree with the other judges' majority.
                  Flagged when below chance (one-sided binomial test, Holm-adjusted, 5 %).
                </p>
                <DataTable
                  label="Judge agreement"
                  cards
                  testId="judge-agreement-table"
                  headers={['Judge', 'Votes', 'Agreement', '']}
                  rows={r.judges?.length ?? 0}
                  empty="No judge has voted yet."
                >
                  {(r.judges ?? []).map((j) => (
                    <tr key={j.judge}>
                      <td>{j.judge}</td>
                      <td className="num">{j.votes}</td>
                      <td className="num">
                        {j.agreement === null ? <Missing why="no decided votes" /> : pct(j.agreement)}
                      </td>
                      <td>{j.belowChance && <span className="flagged">below chance</span>}</td>
                    </tr>
                  ))}
                </DataTable>
              </>
            )}
          </>
        )}
      </section>
      {owner && (
        <section className="card" data-testid="judging-agreement">
          <h2>Automated dimensions against the judges</h2>
          <ErrorAlert error={agreement.error} context="Could not load the agreement" />
          {a && (
            <>
              <p className="muted">
                Agreement: the share of decided votes where the dimension prefers the clip people chose (equal
                scores count ½), with a 95 % interval over prompts. Kendall τ-b: the dimension's per-item
                means against the ratings.
              </p>
              <DataTable
                label="Dimension agreement"
                cards
                testId="dimension-agreement-table"
                headers={['Dimension', 'Votes compared', 'Agreement', '95 % interval', 'Kendall τ']}
                rows={a.dimensions.length}
                empty="No dimension is scored on this campaign's clips."
              >
                {a.dimensions.map((d) => (
                  <tr key={d.dimension}>
                    <td>{d.dimension}</td>
                    <td className="num">{d.pairs}</td>
                    <td className="num">
                      {d.agreement === null ? (
                        <Missing why="no decided votes on scored clips" />
                      ) : (
                        pct(d.agreement)
                      )}
                    </td>
                    <td className="num">
                      {d.ci95Low === null || d.ci95High === null ? (
                        <Missing why="too few prompts" />
                      ) : (
                        `${pct(d.ci95Low)} to ${pct(d.ci95High)}`
                      )}
                    </td>
                    <td className="num">
                      {d.kendallTau === null ? (
                        <Missing why="too few rated items, or all tied" />
                      ) : (
                        fixed2(d.kendallTau)
                      )}
                    </td>
                  </tr>
                ))}
              </DataTable>
              {fitted ? (
                <div className="fitted" data-testid="fitted-score">
                  <p>
                    <strong>Team score, {fitted.label}:</strong> predicts {pct(fitted.heldOutAccuracy)} of
                    held-out votes (cross-validated over prompts), against {pct(fitted.bestSingleAccuracy)}{' '}
                    for the best single dimension, {fitted.bestSingleDimension}.
                  </p>
                  <p className="muted">
                    Weights per unit of score:{' '}
                    {Object.entries(fitted.weights)
                      .map(([k, w]) => `${k} ${fixed2(w)}`)
                      .join(', ')}
                    . Fitted to these votes only: not a replacement for VBench's Total.
                  </p>
                </div>
              ) : (
                <p className="muted" data-testid="fitted-score">
                  Team score: <Missing why="too few decided votes to fit one" />
                </p>
              )}
            </>
          )}
        </section>
      )}
    </>
  );
}

/** An offer as the stage plays it. */
function stagePair(o: JudgingOffer): StagePair {
  return {
    offerId: o.offerId,
    left: { clipId: o.left.clipId, src: vesta.judging.clipUrl(o.left.contentUrl) },
    right: { clipId: o.right.clipId, src: vesta.judging.clipUrl(o.right.contentUrl) },
  };
}

export function JudgePage() {
  const { id = '' } = useParams();
  const qc = useQueryClient();
  const campaign = useQuery({ queryKey: ['judging', id], queryFn: () => vesta.judging.get(id) });
  const pairs = useQuery({
    queryKey: ['judging', id, 'next'],
    queryFn: () => vesta.judging.nextPairs(id, { count: 2 }),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  /** Offers answered here and not yet gone from the server's list (the page moves on at once). */
  const [answered, setAnswered] = useState<Set<string>>(new Set());
  const [yourVotes, setYourVotes] = useState<number | null>(null);
  const [lastStart, setLastStart] = useState<number | null>(null);
  const [voteError, setVoteError] = useState<unknown>(null);
  /**
   * Offers whose vote is on its way. A judge may answer the next pair before the last vote has come
   * back (the next pair is preloaded and plays at once), so a press is never dropped for a vote in
   * flight; this only stops one pair being answered twice by two presses within one render.
   */
  const sending = useRef(new Set<string>());
  /** When the last answer was given: the next pair's start is timed from it (shown to tests). */
  const votedAt = useRef<number | null>(null);
  const offers = useMemo(
    () => (pairs.data?.offers ?? []).filter((o) => !answered.has(o.offerId)),
    [pairs.data, answered],
  );
  const current = offers[0] ?? null;
  const next = offers[1] ?? null;

  const vote = useCallback(
    (answer: JudgingAnswer) => {
      if (!current || sending.current.has(current.offerId)) return;
      const offerId = current.offerId;
      sending.current.add(offerId);
      setVoteError(null);
      votedAt.current = performance.now();
      // The next pair's start is timed afresh (the figure shown belongs to the pair on screen).
      setLastStart(null);
      setAnswered((s) => new Set(s).add(offerId));
      vesta.judging
        .vote(id, offerId, answer)
        .then((v) => setYourVotes((n) => Math.max(n ?? 0, v.yourVotes)))
        .catch((e: unknown) => {
          setVoteError(e);
          // Not recorded: the pair comes back so the judge can answer it again.
          setAnswered((s) => {
            const left = new Set(s);
            left.delete(offerId);
            return left;
          });
        })
        .finally(() => {
          sending.current.delete(offerId);
          void qc.invalidateQueries({ queryKey: ['judging', id, 'next'] });
        });
    },
    [current, id, qc],
  );

  // Answers from the keyboard (not while typing in a field, nor with a modifier held).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (
        target &&
        /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) &&
        target.getAttribute('type') !== 'range'
      )
        return;
      const hit = ANSWERS.find((a) => a.keys.includes(e.key.length === 1 ? e.key.toLowerCase() : e.key));
      if (!hit) return;
      e.preventDefault();
      vote(hit.answer);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [vote]);

  const onStarted = useCallback((_offerId: string, ms: number) => {
    // From the vote (the first pair: from being shown) to both clips playing.
    setLastStart(votedAt.current === null ? ms : performance.now() - votedAt.current);
    votedAt.current = null;
  }, []);
  const c = campaign.data;
  const votes = yourVotes ?? pairs.data?.yourVotes ?? 0;
  return (
    <div className="judge-page">
      <div className="title-row">
        <h1>{c ? c.name : 'Judging'}</h1>
        <span className="muted" data-testid="your-votes">
          Your votes: {votes}
        </span>
      </div>
      <ErrorAlert error={campaign.error ?? pairs.error} context="Could not load the pairs" />
      <ErrorAlert error={voteError} context="Your last vote was not recorded" />
      {current ? (
        <>
          <p className="judging-question">{current.question}</p>
          <p className="judge-prompt" data-testid="judge-prompt">
            <span className="muted">Prompt:</span> {current.prompt}
          </p>
          <JudgeStage
            current={stagePair(current)}
            next={next ? stagePair(next) : null}
            onStarted={onStarted}
          />
          <div className="judge-answers" role="group" aria-label="Your answer">
            {ANSWERS.map((a) => (
              <button
                key={a.answer}
                type="button"
                className={a.answer === 'left' || a.answer === 'right' ? undefined : 'secondary'}
                onClick={(e) => {
                  // Focus does not stay on the button: Space then plays or pauses, as on the page.
                  e.currentTarget.blur();
                  vote(a.answer);
                }}
              >
                {a.label} <kbd>{a.shown}</kbd>
              </button>
            ))}
          </div>
          <p className="muted judge-hint" data-testid="start-ms" data-ms={lastStart ?? ''}>
            Keys: ← left, → right, ↓ tie, B both bad, S skip, Space play / pause. Both clips play together;
            the slider moves both.
          </p>
        </>
      ) : pairs.data?.done ? (
        <section className="card" data-testid="judging-done">
          <h2>Nothing left to judge</h2>
          <p>
            You have judged every pair you can in this campaign ({votes} {votes === 1 ? 'vote' : 'votes'}).
            Thank you.
          </p>
          <Link to={`/judging/${id}`}>Back to the campaign</Link>
        </section>
      ) : (
        <p className="muted">{pairs.isFetching ? 'Loading the next pair…' : 'Waiting for pairs…'}</p>
      )}
    </div>
  );
}
