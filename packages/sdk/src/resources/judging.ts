/**
 * Judging campaigns (issue #23): blind pairwise votes on the caller's clips. The owner creates a
 * campaign, adds judges, closes or reveals it and exports the votes; a judge asks for pairs and
 * votes. One method per REST operation.
 */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type {
  AddedJudge,
  Judge,
  JudgingAnswer,
  JudgingCampaign,
  JudgingAgreement,
  JudgingCampaignCreate,
  JudgingRatings,
  JudgingVote,
  NextJudgingPairs,
} from '../types.js';
import type { VideoContent, VideoContentOptions } from './videos.js';

const base = (id: string): string => `/api/v1/judging/campaigns/${encodeURIComponent(id)}`;

export class JudgingResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * Creates a campaign from a Rank session's candidates or from two or more Bench runs.
   * @example
   * const c = await vesta.judging.create({ name: 'v2 vs v3', benchRunIds: [runA, runB] });
   */
  create(body: JudgingCampaignCreate, opts?: RequestOptions): Promise<JudgingCampaign> {
    return this.http.json<JudgingCampaign>({ method: 'POST', path: '/api/v1/judging/campaigns', body }, opts);
  }

  /** The campaigns the caller owns or judges, newest first. */
  list(opts?: RequestOptions): Promise<{ items: JudgingCampaign[] }> {
    return this.http.json<{ items: JudgingCampaign[] }>(
      { method: 'GET', path: '/api/v1/judging/campaigns' },
      opts,
    );
  }

  /** One campaign (blinded for a judge until it is closed or revealed). */
  get(id: string, opts?: RequestOptions): Promise<JudgingCampaign> {
    return this.http.json<JudgingCampaign>({ method: 'GET', path: base(id) }, opts);
  }

  /** Closes the campaign (owner): no more votes; the judges see the names. */
  close(id: string, opts?: RequestOptions): Promise<JudgingCampaign> {
    return this.http.json<JudgingCampaign>({ method: 'POST', path: `${base(id)}/close` }, opts);
  }

  /** Reveals the names to the judges (owner). */
  reveal(id: string, opts?: RequestOptions): Promise<JudgingCampaign> {
    return this.http.json<JudgingCampaign>({ method: 'POST', path: `${base(id)}/reveal` }, opts);
  }

  /** Deletes the campaign with its votes (owner). */
  async delete(id: string, opts?: RequestOptions): Promise<void> {
    await this.http.text({ method: 'DELETE', path: base(id) }, opts);
  }

  /** The campaign's judges (owner). */
  judges(id: string, opts?: RequestOptions): Promise<{ items: Judge[] }> {
    return this.http.json<{ items: Judge[] }>({ method: 'GET', path: `${base(id)}/judges` }, opts);
  }

  /**
   * Adds a judge by email or user name (owner).
   * @example
   * await vesta.judging.addJudge(c.id, { email: 'ana@example.com' });
   */
  addJudge(
    id: string,
    who: { email: string } | { userName: string },
    opts?: RequestOptions,
  ): Promise<AddedJudge> {
    return this.http.json<AddedJudge>({ method: 'POST', path: `${base(id)}/judges`, body: who }, opts);
  }

  /** Removes a judge (owner): their votes are kept but no longer counted. */
  async removeJudge(id: string, judgeId: string, opts?: RequestOptions): Promise<void> {
    await this.http.text(
      { method: 'DELETE', path: `${base(id)}/judges/${encodeURIComponent(judgeId)}` },
      opts,
    );
  }

  /**
   * The pairs for the calling judge: the open offers, topped up to `count` (1–3).
   * @example
   * const { offers, done } = await vesta.judging.nextPairs(c.id, { count: 2 });
   */
  nextPairs(id: string, options: { count?: number } = {}, opts?: RequestOptions): Promise<NextJudgingPairs> {
    return this.http.json<NextJudgingPairs>(
      { method: 'GET', path: `${base(id)}/next-pairs`, query: { count: options.count } },
      opts,
    );
  }

  /**
   * Votes on an offered pair.
   * @example
   * await vesta.judging.vote(c.id, offer.offerId, 'left');
   */
  vote(id: string, offerId: string, answer: JudgingAnswer, opts?: RequestOptions): Promise<JudgingVote> {
    return this.http.json<JudgingVote>(
      { method: 'POST', path: `${base(id)}/votes`, body: { offerId, answer } },
      opts,
    );
  }

  /** The URL of an offered clip's bytes (`offer.left.contentUrl` made absolute), for a `<video src>`. */
  clipUrl(contentUrl: string): string {
    return this.http.url(contentUrl);
  }

  /** An offered clip's bytes (whole or one range), by the campaign's clip id. */
  async clipContent(id: string, clipId: string, opts: VideoContentOptions = {}): Promise<VideoContent> {
    const { range, ...rest } = opts;
    const res = await this.http.bytes(
      {
        method: 'GET',
        path: `${base(id)}/clips/${encodeURIComponent(clipId)}/content`,
        ...(range ? { headers: { Range: `bytes=${range.start}-${range.end ?? ''}` } } : {}),
      },
      rest,
    );
    const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
    const sent = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
    if (res.status === 206 && sent)
      return {
        bytes: res.bytes,
        contentType,
        totalBytes: Number(sent[3]),
        range: { start: Number(sent[1]), end: Number(sent[2]) },
      };
    return { bytes: res.bytes, contentType, totalBytes: res.bytes.byteLength, range: null };
  }

  /** Ratings with 95 % intervals, the win matrix and each judge's agreement (owner; judges once revealed). */
  ratings(id: string, opts?: RequestOptions): Promise<JudgingRatings> {
    return this.http.json<JudgingRatings>({ method: 'GET', path: `${base(id)}/ratings` }, opts);
  }

  /** How well each automated dimension agrees with the judges, and the fitted team score (owner). */
  agreement(id: string, opts?: RequestOptions): Promise<JudgingAgreement> {
    return this.http.json<JudgingAgreement>({ method: 'GET', path: `${base(id)}/agreement` }, opts);
  }

  /**
   * Every vote as CSV (default) or JSON Lines (owner): clip ids, prompt, answer, judge pseudonym, time.
   * @example
   * const jsonl = await vesta.judging.export(c.id, { format: 'jsonl' });
   */
  export(id: string, options: { format?: 'csv' | 'jsonl' } = {}, opts?: RequestOptions): Promise<string> {
    return this.http.text(
      { method: 'GET', path: `${base(id)}/export`, query: { format: options.format } },
      opts,
    );
  }
}
