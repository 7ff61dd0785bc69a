/**
 * Bench runs with scored clips written straight into a test server's database: what the runner
 * protocol and the evaluator would have written, with values the test chooses (the statistics
 * need known numbers; real scoring is exercised by the runner and pipeline tests).
 */
import type { Db } from '../../src/db/connection.js';
import type { BenchStatus } from '../../src/domain/bench-state.js';

/** Anything with the server's database (a test server, a server the benchmark started). */
export interface WithDatabase {
  deps: { db: Db };
}

export interface SeedClip {
  prompt: string;
  group: string;
  sample: number;
  scores: Record<string, number>;
  method?: string;
  version?: string;
}

export interface SeedRun {
  id: string;
  userId: string;
  model: string;
  suite?: string | null;
  status?: BenchStatus;
  clips: SeedClip[];
  /** Tasks of the run not yet generated (still pending). */
  pending?: number;
}

export async function seedRun(server: WithDatabase, run: SeedRun): Promise<void> {
  const db = server.deps.db;
  const now = Date.now();
  const dimensions = [...new Set(run.clips.flatMap((c) => Object.keys(c.scores)))];
  await db
    .insertInto('bench_runs')
    .values({
      id: run.id,
      user_id: run.userId,
      name: run.id,
      model_id: run.model,
      runner_id: null,
      dimensions: JSON.stringify(dimensions),
      status: run.status ?? 'completed',
      error_code: null,
      error_detail: null,
      created_at: now,
      updated_at: now,
      started_at: now,
      finished_at: run.status === undefined || run.status === 'completed' ? now : null,
      samples_per_prompt: Math.max(1, ...run.clips.map((c) => c.sample + 1)),
      prompts_per_dimension: null,
      suite_version: run.suite === undefined ? 'suite-test' : run.suite,
      scorecard: null,
    })
    .execute();
  await db
    .insertInto('sessions')
    .values({
      id: run.id,
      user_id: run.userId,
      kind: 'bench',
      prompt: null,
      created_at: now,
      retired_at: now,
      active: null,
    })
    .execute();
  let seq = 0;
  for (const clip of run.clips) {
    const videoId = `${run.id}-v${seq}`;
    await db
      .insertInto('videos')
      .values({
        id: videoId,
        session_id: run.id,
        user_id: run.userId,
        file_name: `${seq}.mp4`,
        content_type: 'video/mp4',
        prompt: clip.prompt,
        auxiliary: null,
        state: 'scored',
        error_code: null,
        error_detail: null,
        blob_key: `seed/${videoId}`,
        max_bytes: 1000,
        size_bytes: 10,
        upload_expires_at: now,
        upload_started_at: null,
        probe: null,
        dimensions: JSON.stringify(Object.keys(clip.scores)),
        created_at: now,
        uploaded_at: now,
        confirmed_at: now,
        scored_at: now,
      })
      .execute();
    await db
      .insertInto('scores')
      .values(
        Object.entries(clip.scores).map(([dimension, value]) => ({
          video_id: videoId,
          dimension,
          value,
          method: clip.method ?? 'lite',
          method_version: clip.version ?? '1',
          frames: '{}',
          models: '[]',
          details: null,
          elapsed_ms: 1,
          created_at: now,
        })),
      )
      .execute();
    await db
      .insertInto('bench_tasks')
      .values({
        id: `${run.id}-t${seq}`,
        run_id: run.id,
        seq,
        prompt: `text of ${clip.prompt}`,
        auxiliary: null,
        dimensions: JSON.stringify(Object.keys(clip.scores)),
        sample_index: clip.sample,
        seed: seq,
        state: 'done',
        runner_id: null,
        attempts: 1,
        lease_expires_at: null,
        video_id: videoId,
        error_code: null,
        error_detail: null,
        created_at: now,
        updated_at: now,
        lease_id: null,
        prompt_id: clip.prompt,
        clip_group: clip.group,
      })
      .execute();
    seq++;
  }
  for (let i = 0; i < (run.pending ?? 0); i++, seq++)
    await db
      .insertInto('bench_tasks')
      .values({
        id: `${run.id}-t${seq}`,
        run_id: run.id,
        seq,
        prompt: 'a pending clip',
        auxiliary: null,
        dimensions: JSON.stringify(dimensions),
        sample_index: 0,
        seed: seq,
        state: 'pending',
        runner_id: null,
        attempts: 0,
        lease_expires_at: null,
        video_id: null,
        error_code: null,
        error_detail: null,
        created_at: now,
        updated_at: now,
        lease_id: null,
        prompt_id: `pending-${i}`,
        clip_group: 'pending',
      })
      .execute();
}

/** Clips of `prompts` prompts × `samples` samples in one clip group, valued by `value`. */
export function grid(
  group: string,
  prompts: number,
  samples: number,
  value: (prompt: number, sample: number) => Record<string, number>,
  extra: Partial<SeedClip> = {},
): SeedClip[] {
  const out: SeedClip[] = [];
  for (let p = 0; p < prompts; p++)
    for (let s = 0; s < samples; s++)
      out.push({
        prompt: `${group}-${String(p + 1).padStart(2, '0')}`,
        group,
        sample: s,
        scores: value(p, s),
        ...extra,
      });
  return out;
}
