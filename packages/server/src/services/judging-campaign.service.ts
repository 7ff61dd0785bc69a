/**
 * Judging campaigns (issue #23): making one from the owner's clips, listing, reading, closing,
 * revealing and deleting it.
 *
 * A campaign is made by its owner from a Rank session's candidates (every pair of candidates: they
 * share the session's one prompt) or from two or more Bench runs of one prompt suite (for each
 * prompt, every two runs' clips of the same sample index). Pairs are always two clips of one prompt
 * from two different items (runs or candidates). The sources are read through the project's
 * owner-scoped reads (`Owned`, `ownRow`): another user's session or run is 403, a missing one 404.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  CreateJudgingCampaignInput,
  JudgingCampaignView,
  JudgingQuestionKind,
} from '../domain/views/judging.js';
import { forbidden, notFound, validationFailed } from '../errors.js';
import { ownedRead } from '../repositories/owned.js';
import type {
  JudgingCampaignRecord,
  JudgingClipRecord,
  JudgingItemRecord,
  JudgingJudgeRecord,
  JudgingPairRecord,
  Repositories,
} from '../repositories/index.js';
import { iso } from './judging-access.js';
import type { JudgingAccess } from './judging-access.js';
import { publicModelId } from './model-keys.js';
import { ownRow } from './ownership.js';

/** The question each kind asks unless the owner words it. */
export const DEFAULT_QUESTIONS: Record<Exclude<JudgingQuestionKind, 'custom'>, string> = {
  overall: 'Which clip is better overall for this prompt?',
  prompt_fit: 'Which clip follows the prompt more faithfully?',
  motion: 'Which clip has the more natural, fluid motion?',
  visual_quality: 'Which clip looks better (sharpness, artefacts, aesthetics)?',
};

/** Votes per pair unless the owner says otherwise. */
export const DEFAULT_VOTES_PER_PAIR = 3;
/** A Rank campaign pairs every two candidates: at most this many candidates (19,900 pairs). */
export const MAX_RANK_CANDIDATES = 200;
/** At most this many pairs in one campaign. */
export const MAX_PAIRS = 100_000;

type NewPair = Omit<JudgingPairRecord, 'n_votes' | 'n_open'>;
interface Plan {
  items: JudgingItemRecord[];
  clips: JudgingClipRecord[];
  pairs: NewPair[];
}

export class JudgingCampaignService {
  constructor(
    private readonly repos: Repositories,
    private readonly access: JudgingAccess,
    private readonly now: () => number,
  ) {}

  async create(ownerId: string, input: CreateJudgingCampaignInput): Promise<JudgingCampaignView> {
    const name = input.name.trim();
    if (name === '') throw validationFailed('name must not be empty');
    const kind = input.question?.kind ?? 'overall';
    const wording = input.question?.text?.trim();
    if (kind === 'custom' && !wording) throw validationFailed('a custom question needs its text');
    const question = wording || DEFAULT_QUESTIONS[kind as Exclude<JudgingQuestionKind, 'custom'>];
    const hasRank = input.rankSessionId !== undefined;
    const hasBench = input.benchRunIds !== undefined;
    if (hasRank === hasBench) throw validationFailed('give exactly one of rankSessionId and benchRunIds');
    const id = randomUUID();
    const plan = hasRank
      ? await this.planRank(ownerId, id, input.rankSessionId!)
      : await this.planBench(ownerId, id, input.benchRunIds!);
    const campaign: JudgingCampaignRecord = {
      id,
      owner_id: ownerId,
      name,
      question_kind: kind,
      question,
      source_kind: hasRank ? 'rank' : 'bench',
      source_ids: JSON.stringify(hasRank ? [input.rankSessionId] : input.benchRunIds),
      votes_per_pair: input.votesPerPair ?? DEFAULT_VOTES_PER_PAIR,
      status: 'open',
      seed: randomBytes(16).toString('hex'),
      n_votes: 0,
      created_at: this.now(),
      closed_at: null,
      revealed_at: null,
    };
    await this.repos.transaction((tx) =>
      tx.judging.insertCampaign(campaign, plan.items, plan.clips, plan.pairs),
    );
    return this.view(campaign, 'owner', null);
  }

  private async planRank(ownerId: string, campaignId: string, sessionId: string): Promise<Plan> {
    const found = await this.repos.sessions.byId(sessionId);
    // A Bench run's session is not a Rank session by any reading: not found.
    const session = ownRow(
      ownedRead(found?.kind === 'bench' ? undefined : found, (s) => s.user_id, ownerId),
      {
        none: () => notFound(`rank session '${sessionId}'`),
        other: () => forbidden(`rank session '${sessionId}' belongs to another user`),
      },
    );
    if (session.kind !== 'rank')
      throw validationFailed(`'${sessionId}' is a ${session.kind} session, not a Rank session`);
    const candidates = await this.repos.judging.rankClipsOfOwner(ownerId, sessionId);
    if (candidates.length < 2)
      throw validationFailed(
        `a campaign needs at least two clips of one prompt: Rank session '${sessionId}' has ${candidates.length} uploaded candidate${candidates.length === 1 ? '' : 's'}`,
      );
    if (candidates.length > MAX_RANK_CANDIDATES)
      throw validationFailed(
        `a Rank campaign pairs every two candidates: at most ${MAX_RANK_CANDIDATES} candidates (this session has ${candidates.length})`,
      );
    const prompt = session.prompt ?? candidates.find((c) => c.prompt !== null)?.prompt ?? '';
    const items: JudgingItemRecord[] = candidates.map((c, i) => ({
      campaign_id: campaignId,
      item: c.video_id,
      label: c.file_name,
      ordinal: i,
    }));
    const clips: JudgingClipRecord[] = candidates.map((c) => ({
      id: randomUUID(),
      campaign_id: campaignId,
      video_id: c.video_id,
      item: c.video_id,
      prompt_key: 'rank',
      prompt,
      sample_index: 0,
    }));
    const pairs: NewPair[] = [];
    for (let i = 0; i < clips.length; i++)
      for (let j = i + 1; j < clips.length; j++) pairs.push(newPair(campaignId, clips[i]!, clips[j]!));
    return { items, clips, pairs };
  }

  private async planBench(ownerId: string, campaignId: string, runIds: string[]): Promise<Plan> {
    if (new Set(runIds).size !== runIds.length) throw validationFailed('benchRunIds names a run twice');
    if (runIds.length < 2)
      throw validationFailed(
        'a campaign from Bench runs needs at least two runs (pairs compare two runs on one prompt)',
      );
    const runs = [];
    for (const runId of runIds)
      runs.push(
        ownRow(await this.repos.benchRuns.ownedBy(runId, ownerId), {
          none: () => notFound(`bench run '${runId}'`),
          other: () => forbidden(`bench run '${runId}' belongs to another user`),
        }),
      );
    const suites = new Set(runs.map((r) => r.suite_version));
    if (suites.size > 1)
      throw validationFailed(
        `the runs were planned from different prompt suites (${[...suites].map((s) => s ?? 'unrecorded').join(', ')}): pairs need the same prompts`,
      );
    const found = await this.repos.judging.benchClipsOfOwner(ownerId, runIds);
    const byKey = new Map<string, Map<string, (typeof found)[number]>>();
    for (const c of found) {
      const key = `${c.prompt_id ?? c.prompt}\u0000${c.sample_index}`;
      const of = byKey.get(key) ?? new Map<string, (typeof found)[number]>();
      of.set(c.run_id, c);
      byKey.set(key, of);
    }
    const items: JudgingItemRecord[] = runs.map((r, i) => ({
      campaign_id: campaignId,
      item: r.id,
      label: `${publicModelId(r.model_id)} · ${r.name}`,
      ordinal: i,
    }));
    const clips: JudgingClipRecord[] = [];
    const pairs: NewPair[] = [];
    for (const of of byKey.values()) {
      const present = runs.filter((r) => of.has(r.id));
      if (present.length < 2) continue;
      const made = present.map((r) => {
        const c = of.get(r.id)!;
        const clip: JudgingClipRecord = {
          id: randomUUID(),
          campaign_id: campaignId,
          video_id: c.video_id,
          item: r.id,
          prompt_key: c.prompt_id ?? c.prompt,
          prompt: c.prompt,
          sample_index: c.sample_index,
        };
        clips.push(clip);
        return clip;
      });
      for (let i = 0; i < made.length; i++)
        for (let j = i + 1; j < made.length; j++) pairs.push(newPair(campaignId, made[i]!, made[j]!));
      if (pairs.length > MAX_PAIRS)
        throw validationFailed(`the campaign would have more than ${MAX_PAIRS} pairs: choose fewer runs`);
    }
    if (pairs.length === 0)
      throw validationFailed(
        'the runs have no prompt with a generated clip in two of them: a campaign needs at least two clips of one prompt',
      );
    return { items, clips, pairs };
  }

  async list(userId: string): Promise<JudgingCampaignView[]> {
    const rows = await this.repos.judging.listForUser(userId);
    const out: JudgingCampaignView[] = [];
    for (const r of rows) {
      const role = r.owner_id === userId ? 'owner' : 'judge';
      const judge = r.judge_id === null ? null : await this.repos.judging.judge(r.id, r.judge_id);
      out.push(await this.view(r, role, judge ?? null));
    }
    return out;
  }

  async get(userId: string, id: string): Promise<JudgingCampaignView> {
    const a = await this.access.of(userId, id);
    return this.view(a.campaign, a.role, a.judge);
  }

  async close(userId: string, id: string): Promise<JudgingCampaignView> {
    const c = await this.access.owner(userId, id);
    await this.repos.judging.close(userId, id, this.now());
    return this.get(userId, c.id);
  }

  async reveal(userId: string, id: string): Promise<JudgingCampaignView> {
    await this.access.owner(userId, id);
    await this.repos.judging.reveal(userId, id, this.now());
    return this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<void> {
    await this.access.owner(userId, id);
    await this.repos.transaction((tx) => tx.judging.deleteOfOwner(userId, id));
  }

  private async view(
    c: JudgingCampaignRecord,
    role: 'owner' | 'judge',
    judge: JudgingJudgeRecord | null,
  ): Promise<JudgingCampaignView> {
    const namesVisible = role === 'owner' || c.status === 'closed' || c.revealed_at !== null;
    const progress = await this.repos.judging.progressOf(c.id);
    const judges = await this.repos.judging.judgesOf(c.id);
    let items: JudgingCampaignView['items'] = null;
    if (namesVisible) {
      const clips = await this.repos.judging.clipsOf(c.id);
      const count = new Map<string, number>();
      for (const clip of clips) count.set(clip.item, (count.get(clip.item) ?? 0) + 1);
      items = (await this.repos.judging.itemsOf(c.id)).map((i) => ({
        id: i.item,
        label: i.label,
        clips: count.get(i.item) ?? 0,
      }));
    }
    return {
      id: c.id,
      name: c.name,
      role,
      isJudge: judge !== null,
      question: { kind: c.question_kind, text: c.question },
      status: c.status,
      votesPerPair: c.votes_per_pair,
      createdAt: iso(c.created_at)!,
      closedAt: iso(c.closed_at),
      revealedAt: iso(c.revealed_at),
      namesVisible,
      source: namesVisible ? { kind: c.source_kind, ids: JSON.parse(c.source_ids) as string[] } : null,
      items,
      progress: {
        pairs: progress.pairs,
        pairsComplete: progress.pairs_complete,
        clips: progress.clips,
        clipsDeleted: progress.clips_deleted,
        votes: Number(c.n_votes),
        judges: judges.filter((j) => j.removed_at === null).length,
        yourVotes: judge ? await this.repos.judging.countVotesOf(judge.id) : 0,
      },
    };
  }
}

function newPair(campaignId: string, a: JudgingClipRecord, b: JudgingClipRecord): NewPair {
  return {
    id: randomUUID(),
    campaign_id: campaignId,
    clip_a: a.id,
    clip_b: b.id,
    item_a: a.item,
    item_b: b.item,
    prompt_key: a.prompt_key,
  };
}
