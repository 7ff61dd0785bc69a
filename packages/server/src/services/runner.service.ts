/**
 * The runner registry: the runners a user registered (processes that generate Bench clips), the
 * models each serves, and when each was last seen. A runner acts for the user whose API key
 * registered it. What a runner does with tasks (claims, leases) is `runner-task.service.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { RegisterRunnerInput, RunnerView } from '../domain/views/runners.js';
import { forbidden, notFound } from '../errors.js';
import type { Repositories, RunnerRecord } from '../repositories/index.js';
import type { BenchProgressService } from './bench-progress.service.js';
import { privateModelKey, publicModelId, resolveModelKey } from './model-keys.js';
import type { TaskNotifier } from './task-notifier.js';
import { ownRow } from './ownership.js';

/** Claims long-poll at most this long. */
export const MAX_CLAIM_WAIT_SECONDS = 30;
export const DEFAULT_CLAIM_WAIT_SECONDS = 20;
/** A runner is online when seen (register, claim, heartbeat) within 2 × the longest claim wait. */
export const RUNNER_ONLINE_WINDOW_MS = 2 * MAX_CLAIM_WAIT_SECONDS * 1000;

/** Whether a runner last seen at `lastSeenAt` (epoch ms) counts as online at `now`. */
export function isRunnerOnline(lastSeenAt: number | null, now: number): boolean {
  return lastSeenAt !== null && lastSeenAt >= now - RUNNER_ONLINE_WINDOW_MS;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export interface RunnerServiceDeps {
  repos: Repositories;
  progress: BenchProgressService;
  notifier: TaskNotifier;
  now?: () => number;
}

export class RunnerService {
  private readonly repos: Repositories;
  private readonly progress: BenchProgressService;
  private readonly notifier: TaskNotifier;
  private readonly now: () => number;

  constructor(deps: RunnerServiceDeps) {
    this.repos = deps.repos;
    this.progress = deps.progress;
    this.notifier = deps.notifier;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Registers a runner of `userId`. Each declared id names the user's private model or else the
   * global one (`model-keys.ts`); an id that names neither becomes a private model of the user
   * (name = id), which no other user sees.
   */
  async register(userId: string, input: RegisterRunnerInput): Promise<RunnerView> {
    const declared = [...new Set(input.models)];
    const t = this.now();
    const id = `runner_${randomUUID().replaceAll('-', '')}`;
    await this.repos.transaction(async (tx) => {
      const models: string[] = [];
      for (const model of declared) {
        const known = await resolveModelKey(tx.models, userId, model);
        if (known !== undefined) {
          models.push(known);
          continue;
        }
        const key = privateModelKey(userId, model);
        await tx.models.insertIfAbsent({
          id: key,
          public_id: model,
          owner_id: userId,
          name: model,
          description: `Declared by your runner '${input.name}' when it registered.`,
          created_at: t,
        });
        models.push(key);
      }
      await tx.runners.insert(
        {
          id,
          user_id: userId,
          name: input.name,
          created_at: t,
          last_seen_at: t,
          max_concurrency: input.maxConcurrency ?? 1,
          version: input.version ?? null,
        },
        models,
      );
    });
    // A new runner may take work that was waiting.
    this.notifier.notify();
    return this.get(userId, id);
  }

  async list(userId: string): Promise<RunnerView[]> {
    return this.views(await this.repos.runners.ofUser(userId));
  }

  async get(userId: string, id: string): Promise<RunnerView> {
    const row = await this.owned(userId, id);
    const [view] = await this.views([row]);
    if (!view) throw notFound('runner');
    return view;
  }

  /** Removes the runner; the tasks it holds go back to the queue (the attempt does not count). */
  async deregister(userId: string, id: string): Promise<void> {
    await this.owned(userId, id);
    const t = this.now();
    const held = await this.repos.transaction(async (tx) => {
      const tasks = await tx.benchTasks.heldBy(id);
      if (tasks.length > 0) await tx.benchTasks.requeueHeldBy(id, t);
      await tx.runners.delete(id);
      return tasks;
    });
    for (const task of held)
      await this.progress.appendLog(
        task.run_id,
        'server',
        'warn',
        `runner ${id} was deregistered while it held clip #${task.seq}; the clip is back in the queue`,
      );
    // Wakes claims: others may take the handed-back tasks; this runner's own waiting claim ends (404).
    this.notifier.notify();
  }

  /** The user's runner: 404 when it does not exist, 403 when it is another user's. */
  async owned(userId: string, id: string): Promise<RunnerRecord> {
    return ownRow(await this.repos.runners.ownedBy(id, userId), {
      none: () => notFound('runner'),
      other: () => forbidden('this runner belongs to another user'),
    });
  }

  /** Records that the runner was seen; false when it no longer exists. */
  async touch(runnerId: string | null): Promise<boolean> {
    if (runnerId === null) return false;
    return this.repos.runners.touch(runnerId, this.now());
  }

  private async views(rows: RunnerRecord[]): Promise<RunnerView[]> {
    if (rows.length === 0) return [];
    const links = await this.repos.runners.modelLinks(rows.map((r) => r.id));
    const now = this.now();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      models: links
        .filter((l) => l.runner_id === r.id)
        .map((l) => publicModelId(l.model_id))
        .sort(),
      maxConcurrency: r.max_concurrency,
      version: r.version,
      createdAt: iso(r.created_at),
      lastSeenAt: r.last_seen_at === null ? null : iso(r.last_seen_at),
      online: isRunnerOnline(r.last_seen_at, now),
    }));
  }
}
