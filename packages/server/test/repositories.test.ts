/**
 * The repositories' unit of work, on SQLite and on PostgreSQL (vitest projects `sqlite` and
 * `postgres`), against a real migrated database:
 * - a transaction that spans aggregates (a Bench run, its tasks and log, its clips' holder
 *   session) commits as one, and leaves nothing behind when its work throws;
 * - the hot-path reads compiled once run on the executor of their repository: inside a
 *   transaction they see its uncommitted rows (on the database they would not, or would wait for
 *   the transaction's connection);
 * - claims taken side by side by different runners each lease a different task, none twice and
 *   none coming back empty while tasks remain. On PostgreSQL that needs the pick's row lock
 *   (`FOR UPDATE SKIP LOCKED`): without it two claims pick the same task and the loser of the
 *   compare-and-set gets nothing (seen when the lock is taken out).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import type { OpenedDatabase } from '../src/db/connection.js';
import { Repositories } from '../src/repositories/index.js';
import type { BenchRunRecord, BenchTaskRecord, SessionRecord } from '../src/repositories/index.js';
import { dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';

let dir: string;
let opened: OpenedDatabase;
let repos: Repositories;
let userId: string;
const T = 1_700_000_000_000;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-repositories-'));
  opened = await openDatabase(await testDatabaseTarget(dir));
  repos = new Repositories(opened.db);
  userId = randomUUID();
  await repos.users.insert({
    id: userId,
    name: `repo-${userId.slice(0, 8)}`,
    created_at: T,
    email: null,
    password_hash: null,
    role: 'user',
    disabled_at: null,
  });
  for (const id of ['repo-model', 'repo-claim-model'])
    await repos.models.upsertGlobal({ id, name: id, description: 'under test' }, T);
});

afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase(dir);
});

function run(id: string, model: string): BenchRunRecord {
  return {
    id,
    user_id: userId,
    name: id,
    model_id: model,
    runner_id: null,
    dimensions: '["subject_consistency"]',
    status: 'queued',
    error_code: null,
    error_detail: null,
    created_at: T,
    updated_at: T,
    started_at: null,
    finished_at: null,
    samples_per_prompt: 1,
    prompts_per_dimension: null,
    suite_version: null,
    scorecard: null,
    n_pending: 0,
    n_claimed: 0,
    n_uploaded: 0,
    n_evaluating: 0,
    n_done: 0,
    n_failed: 0,
    n_cancelled: 0,
  };
}

function tasks(runId: string, n: number): BenchTaskRecord[] {
  return Array.from({ length: n }, (_, seq) => ({
    id: `task_${randomUUID().replaceAll('-', '')}`,
    run_id: runId,
    seq,
    prompt: `prompt ${seq}`,
    auxiliary: null,
    dimensions: '["subject_consistency"]',
    sample_index: 0,
    seed: seq,
    state: 'pending',
    runner_id: null,
    attempts: 0,
    lease_expires_at: null,
    video_id: null,
    error_code: null,
    error_detail: null,
    created_at: T,
    updated_at: T,
    lease_id: null,
    max_attempts: 3,
    prompt_id: null,
    clip_group: null,
    lease_expiries: 0,
  }));
}

function holder(runId: string): SessionRecord {
  return {
    id: runId,
    user_id: userId,
    kind: 'bench',
    prompt: null,
    created_at: T,
    retired_at: T,
    active: null,
  };
}

/** A run with its holder session, tasks and first log line, written in one transaction. */
async function createRun(id: string, taskCount: number, fail = false, model = 'repo-model'): Promise<void> {
  await repos.transaction(async (tx) => {
    await tx.benchRuns.insert(run(id, model));
    await tx.sessions.insert(holder(id));
    await tx.benchTasks.insertMany(tasks(id, taskCount));
    await tx.benchRuns.appendLog({
      run_id: id,
      time: T,
      source: 'server',
      level: 'info',
      message: 'created',
    });
    if (fail) throw new Error('the work failed after writing');
  });
}

describe('Repositories.transaction', () => {
  it('writes a run, its tasks, its log and its holder session together, or none of them', async () => {
    const failed = `bench_${randomUUID()}`;
    await expect(createRun(failed, 250, true)).rejects.toThrow('the work failed after writing');
    expect(await repos.benchRuns.byId(failed)).toBeUndefined();
    expect(await repos.sessions.byId(failed)).toBeUndefined();
    expect(await repos.benchTasks.pageOfRun(failed, 10, 0)).toEqual([]);
    expect(await repos.benchRuns.logCount(failed)).toBe(0);

    const made = `bench_${randomUUID()}`;
    await createRun(made, 250);
    // 250 tasks go in two INSERT batches; the progress triggers counted both.
    expect((await repos.benchRuns.byId(made))?.n_pending).toBe(250);
    expect((await repos.sessions.byId(made))?.kind).toBe('bench');
    expect(await repos.benchTasks.pageOfRun(made, 1000, 0)).toHaveLength(250);
    expect(await repos.benchRuns.logCount(made)).toBe(1);
  });

  it('runs the reads compiled once inside the transaction that owns the repository', async () => {
    const id = `score_${randomUUID().replaceAll('-', '')}`;
    const row: SessionRecord = {
      id,
      user_id: userId,
      kind: 'score',
      prompt: null,
      created_at: T,
      retired_at: null,
      active: 1,
    };
    await expect(
      repos.transaction(async (tx) => {
        await tx.sessions.insert(row);
        // Both are prepared queries: they see the uncommitted row only on the transaction's connection.
        expect(await tx.sessions.byId(id)).toEqual(row);
        expect(await tx.sessions.current(userId, 'score')).toEqual(row);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await repos.sessions.byId(id)).toBeUndefined();
    expect(await repos.sessions.current(userId, 'score')).toBeUndefined();
  });
});

describe('claims through the repositories', () => {
  it('leases a different task to each of several runners claiming at once, none twice', async () => {
    const runId = `bench_${randomUUID()}`;
    // A model of its own: the runs of the other tests (same user) are not this claim's.
    await createRun(runId, 5, false, 'repo-claim-model');
    const runners = Array.from({ length: 5 }, () => `runner_${randomUUID().replaceAll('-', '')}`);
    for (const id of runners) {
      await repos.runners.insert(
        { id, user_id: userId, name: id, created_at: T, last_seen_at: T, max_concurrency: 1, version: null },
        ['repo-claim-model'],
      );
    }
    const claim = (runnerId: string) =>
      repos.transaction(async (tx) => {
        await tx.runners.lockForClaim(runnerId);
        const next = await tx.benchTasks.nextClaimable({ id: runnerId, user_id: userId });
        if (next === undefined) return undefined;
        return tx.benchTasks.lease(next, runnerId, { id: `lease_${randomUUID()}`, expiresAt: T + 60_000 }, T);
      });
    const leased = await Promise.all(runners.map(claim));
    const ids = leased.map((t) => t?.id);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(new Set(ids).size).toBe(5);
    expect(leased.map((t) => t?.runner_id).sort()).toEqual([...runners].sort());
    const counters = await repos.benchRuns.byId(runId);
    expect(counters).toMatchObject({ n_pending: 0, n_claimed: 5 });
    // Nothing is left to claim.
    expect(await claim(runners[0]!)).toBeUndefined();
  });
});

describe("the Bench run's lifecycle through one repository", () => {
  /** A run `evaluating` with `n` tasks whose clips are being scored (videos `scoring`). */
  async function evaluatingRun(n: number): Promise<{ runId: string; videos: string[] }> {
    const runId = `bench_${randomUUID()}`;
    await createRun(runId, n);
    const planned = await repos.benchTasks.pageOfRun(runId, n, 0);
    const videos: string[] = [];
    for (const task of planned) {
      const id = `vid_${randomUUID().replaceAll('-', '')}`;
      videos.push(id);
      await repos.uploads.insert({
        id,
        session_id: runId,
        user_id: userId,
        file_name: 'clip.mp4',
        content_type: 'video/mp4',
        prompt: task.prompt,
        auxiliary: null,
        state: 'scoring',
        error_code: null,
        error_detail: null,
        blob_key: id,
        max_bytes: 1,
        size_bytes: 1,
        upload_expires_at: T,
        upload_started_at: null,
        upload_owner: null,
        probe: null,
        blob_version: null,
        dimensions: task.dimensions,
        created_at: T,
        uploaded_at: T,
        confirmed_at: T,
        scored_at: null,
      });
      await opened.db
        .updateTable('bench_tasks')
        .set({ state: 'evaluating', video_id: id })
        .where('id', '=', task.id)
        .execute();
    }
    await opened.db.updateTable('bench_runs').set({ status: 'evaluating' }).where('id', '=', runId).execute();
    return { runId, videos };
  }

  /** One clip's settling transaction, as the evaluator runs it: scores stored, task done, run advanced. */
  const settle = (videoId: string, at: number) =>
    repos.transaction(async (tx) => {
      await tx.videos.finishScoring(videoId, {
        state: 'scored',
        error_code: null,
        error_detail: null,
        scored_at: at,
      });
      await tx.videos.insertScores([
        {
          video_id: videoId,
          dimension: 'subject_consistency',
          value: 0.9,
          method: 'vbench',
          method_version: '1',
          frames: '{}',
          models: '[]',
          details: null,
          elapsed_ms: 1,
          created_at: at,
        },
      ]);
      const task = await tx.benchLifecycle.settleTask(videoId, at, null);
      return task && tx.benchLifecycle.advance(task.run_id, at);
    });

  it("completes a run exactly once when its last clips settle at once, in the last one's transaction", async () => {
    const { runId, videos } = await evaluatingRun(4);
    const ended = await Promise.all(videos.map((v) => settle(v, T + 1)));
    // Each settling transaction sees the counters as the ones before it left them (the trigger's
    // update of the run's row orders them), so exactly the last one finishes the run.
    expect(ended.filter((s) => s !== null)).toEqual(['completed']);
    const row = await repos.benchRuns.byId(runId);
    expect(row).toMatchObject({ status: 'completed', n_evaluating: 0, n_done: 4, finished_at: T + 1 });
    const lines = await repos.benchRuns.logPage(runId, 100, 0);
    expect(lines.map((l) => l.message).filter((m) => m.includes('→'))).toEqual([
      'evaluating → completed: 4 clip(s) evaluated',
    ]);
  });

  it('leaves the run as it was when the settling transaction rolls back after its advance', async () => {
    const { runId, videos } = await evaluatingRun(1);
    await expect(
      repos.transaction(async (tx) => {
        const task = await tx.benchLifecycle.settleTask(videos[0]!, T + 2, null);
        expect(await tx.benchLifecycle.advance(task!.run_id, T + 2)).toBe('failed');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await repos.benchRuns.byId(runId)).toMatchObject({
      status: 'evaluating',
      n_evaluating: 1,
      n_done: 0,
    });
  });
});
