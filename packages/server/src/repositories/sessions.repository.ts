/**
 * Sessions: the Score and Rank sessions (one current per user and kind) and the holder of each Bench
 * run's clips (kind `bench`, id = run id, never current; not a session). Part of the Score/Rank
 * aggregate with `videos.repository.ts`.
 */
import type { Db } from '../db/connection.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { SessionKind, SessionsTable } from '../db/schema.js';

/** A stored session. */
export type SessionRecord = SessionsTable;

export class SessionRepository {
  /** Both run on every Score/Rank request: compiled once (on first use, per executor). */
  private currentQuery?: (...params: unknown[]) => Promise<SessionRecord[]>;
  private byIdQuery?: (...params: unknown[]) => Promise<SessionRecord[]>;

  constructor(private readonly db: Db) {}

  /** The user's current (active) session of `kind`. */
  async current(userId: string, kind: SessionKind): Promise<SessionRecord | undefined> {
    this.currentQuery ??= preparedQuery(
      this.db,
      this.db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', '?')
        .where('kind', '=', 'score')
        .where('active', '=', 1),
      3,
    );
    const [row] = await this.currentQuery(userId, kind, 1);
    return row;
  }

  async byId(id: string): Promise<SessionRecord | undefined> {
    this.byIdQuery ??= preparedQuery(
      this.db,
      this.db.selectFrom('sessions').selectAll().where('id', '=', '?'),
      1,
    );
    const [row] = await this.byIdQuery(id);
    return row;
  }
  /** The session `id` of `kind` as user `owner` may see it (`Owned`; another kind's id is `none`). */
  async ownedBy(id: string, owner: string, kind: SessionKind): Promise<Owned<SessionRecord>> {
    const row = await this.byId(id);
    return ownedRead(row?.kind === kind ? row : undefined, (r) => r.user_id, owner);
  }

  async insert(row: SessionRecord): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  /**
   * Unlocks a Rank session's prompt when none of its candidates is stored any more (the last one was
   * removed): the next confirmed candidate locks it again. One conditional statement.
   */
  async unlockPromptIfNoCandidate(id: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ prompt: null })
      .where('id', '=', id)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('videos')
              .select('videos.id')
              .where('videos.session_id', '=', id)
              .where('videos.confirmed_at', 'is not', null),
          ),
        ),
      )
      .execute();
  }

  /** The session stops being current (a reset): its run id answers 409 from now on. */
  async retire(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ active: null, retired_at: at })
      .where('id', '=', id)
      .execute();
  }

  /** A Rank session's prompt and whether it is current, read in the upload-url transaction. */
  async promptLock(id: string): Promise<{ prompt: string | null; active: number | null }> {
    return this.db
      .selectFrom('sessions')
      .select(['prompt', 'active'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /**
   * Locks a Rank session to `prompt` unless it is locked already (one conditional statement, so two
   * candidates confirmed at once cannot both lock it); returns the prompt it is locked to now.
   */
  async lockPrompt(id: string, prompt: string): Promise<string> {
    const locked = await this.db
      .updateTable('sessions')
      .set({ prompt })
      .where('id', '=', id)
      .where('prompt', 'is', null)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) > 0) return prompt;
    return (await this.promptLock(id)).prompt ?? prompt;
  }

  /** The session holding a Bench run's clips. */
  async holderOfRun(runId: string): Promise<SessionRecord | undefined> {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', runId)
      .where('kind', '=', 'bench')
      .executeTakeFirst();
  }

  async deleteHolderOfRun(runId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', runId).where('kind', '=', 'bench').execute();
  }
}
