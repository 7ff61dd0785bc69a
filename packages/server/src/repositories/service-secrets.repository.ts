/**
 * Secrets the service generates for itself and keeps in the database (`service_secrets`), shared by
 * every process of a deployment on one database.
 */
import type { Db } from '../db/connection.js';

export class ServiceSecretRepository {
  constructor(private readonly db: Db) {}

  /**
   * The secret `name`, stored as `candidate` if it does not exist yet: whichever process comes
   * first writes it (`ON CONFLICT DO NOTHING`), and every process reads the one stored.
   */
  async getOrCreate(name: string, candidate: string, at: number): Promise<string> {
    await this.db
      .insertInto('service_secrets')
      .values({ name, value: candidate, created_at: at })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('service_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
