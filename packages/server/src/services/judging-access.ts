/**
 * Judging campaigns (issue #23): who may do what on a campaign, and the small pieces every part
 * of the judging service shares. The owner is found by an owner-scoped read
 * (`campaignOfOwner`); a judge through their own judge row (`campaignOfJudge`), so a judge
 * reaches only campaigns they judge and a non-judge learns only that the campaign exists (403).
 */
import { AppError, forbidden, notFound } from '../errors.js';
import type { JudgingCampaignRecord, JudgingJudgeRecord, Repositories } from '../repositories/index.js';
import { ownedRead } from '../repositories/owned.js';

/** Whoever asks, as the campaign sees them. */
export interface Access {
  campaign: JudgingCampaignRecord;
  role: 'owner' | 'judge';
  /** The caller's judge row, when they judge it (not removed). */
  judge: JudgingJudgeRecord | null;
}

export const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(Number(ms)).toISOString();

/** NaN (the statistics' "no value") as null. */
export const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** FNV-1a, 32 bits: a cheap, stable spread of ties between judges. */
export function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function clipContentPath(campaignId: string, clipId: string): string {
  return `/api/v1/judging/campaigns/${campaignId}/clips/${clipId}/content`;
}

export function judgingClosed(id: string, what = ''): AppError {
  return new AppError('judging_closed', `judging campaign '${id}' is closed${what}`);
}

export class JudgingAccess {
  constructor(private readonly repos: Repositories) {}

  /**
   * The caller's access to campaign `id`: 404 for no such campaign, 403 for someone else's. A
   * judge's request is one read (the judge row with its campaign); whether the caller owns the
   * campaign is the owner-scoped read's answer (`ownedRead`), never a hand-made comparison.
   */
  async of(userId: string, id: string): Promise<Access> {
    const asJudge = await this.repos.judging.campaignOfJudge(userId, id);
    if (asJudge) {
      const judge = asJudge.judge.removed_at === null ? asJudge.judge : null;
      const read = ownedRead(asJudge.campaign, (c) => c.owner_id, userId);
      if (read.kind === 'own') return { campaign: read.row, role: 'owner', judge };
      if (!judge) throw forbidden(`you were removed as a judge of judging campaign '${id}'`);
      return { campaign: asJudge.campaign, role: 'judge', judge };
    }
    const owned = await this.repos.judging.campaignOfOwner(userId, id);
    if (owned) return { campaign: owned, role: 'owner', judge: null };
    if (await this.repos.judging.exists(id))
      throw forbidden(`judging campaign '${id}' belongs to another user`);
    throw notFound(`judging campaign '${id}'`);
  }

  /** The campaign, for its owner only (403 for a judge). */
  async owner(userId: string, id: string): Promise<JudgingCampaignRecord> {
    const a = await this.of(userId, id);
    if (a.role !== 'owner') throw forbidden(`only the owner of judging campaign '${id}' may do this`);
    return a.campaign;
  }

  /** The campaign and the caller's judge row, for a judge (the owner too once added as one). */
  async judge(
    userId: string,
    id: string,
  ): Promise<{ campaign: JudgingCampaignRecord; judge: JudgingJudgeRecord }> {
    const a = await this.of(userId, id);
    if (!a.judge)
      throw forbidden(
        `you are not a judge of judging campaign '${id}' (its owner may add themselves as a judge)`,
      );
    return { campaign: a.campaign, judge: a.judge };
  }
}
