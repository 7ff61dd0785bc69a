/**
 * Judging campaigns (issue #23): the owner's judges — listing, adding (by email or user name) and
 * removing them.
 *
 * An email with no account on the server: an admin's add makes an invite through the existing flow
 * and the judge waits (`invited`) for the account that accepts it. A non-admin owner cannot invite
 * people to the server, so their add of such an email is accepted only while an admin's invite to
 * that email is pending (the judge is bound when it is accepted); otherwise it is refused with
 * `judge_not_invited`, telling them to ask an admin for an invite — never an invited judge that no
 * invite will ever reach.
 */
import { randomUUID } from 'node:crypto';
import type { AddJudgeInput, JudgeView } from '../domain/views/judging.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import type { JudgingJudgeRecord, Repositories } from '../repositories/index.js';
import { normaliseEmail } from './account-rules.js';
import { iso, judgingClosed } from './judging-access.js';
import type { JudgingAccess } from './judging-access.js';

/** A judge added, with the invite made for their email (its token goes into the link the route makes). */
export interface AddedJudge {
  judge: JudgeView;
  invite: { token: string; expiresAt: string } | null;
}

/** Something that can make an invite for an email (the admin's existing invite flow). */
export interface JudgeInviter {
  /** The caller's role: only an admin's add makes an invite. */
  isAdmin(userId: string): Promise<boolean>;
  invite(adminId: string, email: string): Promise<{ token: string; expiresAt: string }>;
  /** Whether an invite to `email` (normalised) is pending: made, not used, revoked or expired. */
  hasPendingInvite(email: string): Promise<boolean>;
}

export class JudgingJudgeService {
  constructor(
    private readonly repos: Repositories,
    private readonly access: JudgingAccess,
    private readonly inviter: JudgeInviter,
    private readonly now: () => number,
  ) {}

  async list(userId: string, id: string): Promise<JudgeView[]> {
    const c = await this.access.owner(userId, id);
    const judges = await this.repos.judging.judgesOf(c.id);
    return Promise.all(judges.map((j) => this.view(j)));
  }

  private async view(j: JudgingJudgeRecord): Promise<JudgeView> {
    const account = j.user_id === null ? null : await this.repos.users.account(j.user_id).catch(() => null);
    return {
      id: j.id,
      pseudonym: j.pseudonym,
      userName: account?.name ?? null,
      email: account?.email ?? j.email,
      status: j.removed_at !== null ? 'removed' : j.user_id === null ? 'invited' : 'active',
      addedAt: iso(j.added_at)!,
      removedAt: iso(j.removed_at),
      votes: await this.repos.judging.countVotesOf(j.id),
    };
  }

  /**
   * Adds a judge by email or user name (see the file's header for an email with no account).
   * Adding a judge again answers the same judge; re-adding a removed judge restores them (and
   * their votes count again).
   */
  async add(userId: string, id: string, input: AddJudgeInput): Promise<AddedJudge> {
    const c = await this.access.owner(userId, id);
    if (c.status === 'closed') throw judgingClosed(id);
    if ((input.email === undefined) === (input.userName === undefined))
      throw validationFailed('give exactly one of email and userName');
    let user: { id: string } | undefined;
    let email: string | null = null;
    if (input.email !== undefined) {
      email = normaliseEmail(input.email);
      user = await this.repos.users.byEmail(email);
    } else {
      user = await this.repos.users.byName(input.userName!);
      if (!user) throw notFound(`user '${input.userName}'`);
    }
    const existing = await this.repos.judging.judgeByUserOrEmail(c.id, user?.id ?? null, email);
    if (existing) {
      if (existing.removed_at !== null) await this.repos.judging.restoreJudge(existing.id);
      const again = (await this.repos.judging.judge(c.id, existing.id))!;
      return { judge: await this.view(again), invite: null };
    }
    // An email with no account: an admin invites it; anyone else needs an admin's pending invite.
    const invites = !user && email !== null && (await this.inviter.isAdmin(userId));
    if (!user && email !== null && !invites && !(await this.inviter.hasPendingInvite(email)))
      throw new AppError(
        'judge_not_invited',
        `no user of this server has the email '${email}', and only an admin can invite new users: ask an admin to invite ${email} (or add an existing user by email or user name); once the invite is sent, add ${email} again`,
      );
    const row: JudgingJudgeRecord = {
      id: randomUUID(),
      campaign_id: c.id,
      user_id: user?.id ?? null,
      email: user ? null : email,
      pseudonym: `judge-${(await this.repos.judging.countJudges(c.id)) + 1}`,
      added_at: this.now(),
      removed_at: null,
    };
    await this.repos.judging.insertJudge(row);
    const invite = invites ? await this.inviter.invite(userId, email!) : null;
    return { judge: await this.view(row), invite };
  }

  /**
   * Removes a judge: they lose access at once and their open offers are withdrawn. Their votes are
   * kept (append-only, and in the export marked `judge_removed`) but no longer count in ratings or
   * agreement; adding the judge again makes them count again.
   */
  async remove(userId: string, id: string, judgeId: string): Promise<void> {
    const c = await this.access.owner(userId, id);
    const judge = await this.repos.judging.judge(c.id, judgeId);
    if (!judge) throw notFound(`judge '${judgeId}' of judging campaign '${id}'`);
    await this.repos.transaction((tx) => tx.judging.removeJudge(judge.id, this.now()));
  }
}
