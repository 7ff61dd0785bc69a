/**
 * Data access: one repository per aggregate, each holding its Kysely queries and speaking plain
 * records of its own. Services keep the rules and call these; no service writes SQL.
 *
 * A repository runs its statements on the executor it was built with: the database, or an open
 * transaction of it. `Repositories.transaction` hands its work a `TransactionRepositories` whose
 * every repository runs in that one transaction, so a change that spans aggregates (a Bench run
 * and its clips' holder, a task and the clip it delivered, a confirmed video and the job
 * that scores it) commits or rolls back as one.
 *
 * Hot-path queries are compiled once per repository instance (`db/prepared-query.ts`), on first
 * use; the database-specific parts (PostgreSQL row locks, `ON CONFLICT` claims) are inside the
 * repository methods that need them.
 */
import type { Db } from '../db/connection.js';
import type { QueueExecutor } from '../ports/job-queue.js';
import { ApiKeyRepository } from './api-keys.repository.js';
import { BenchLifecycleRepository } from './bench-lifecycle.repository.js';
import { BenchRunRepository } from './bench-runs.repository.js';
import { BenchTaskRepository } from './bench-tasks.repository.js';
import { IdempotencyRecordRepository } from './idempotency-records.repository.js';
import { JudgingRepository } from './judging.repository.js';
import { ModelRepository } from './models.repository.js';
import { RateLimitStore } from './rate-limits.repository.js';
import { RunnerRepository } from './runners.repository.js';
import { ServiceSecretRepository } from './service-secrets.repository.js';
import { SessionRepository } from './sessions.repository.js';
import { UserRepository } from './users.repository.js';
import { VideoUploadRepository } from './video-uploads.repository.js';
import { VideoRepository } from './videos.repository.js';
import { WebSessionRepository } from './web-sessions.repository.js';

/** The repositories of one executor. */
abstract class RepositorySet {
  readonly benchRuns: BenchRunRepository;
  readonly benchLifecycle: BenchLifecycleRepository;
  readonly benchTasks: BenchTaskRepository;
  readonly runners: RunnerRepository;
  readonly models: ModelRepository;
  readonly sessions: SessionRepository;
  readonly videos: VideoRepository;
  readonly uploads: VideoUploadRepository;
  readonly users: UserRepository;
  readonly webSessions: WebSessionRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly secrets: ServiceSecretRepository;
  readonly idempotency: IdempotencyRecordRepository;
  readonly judging: JudgingRepository;

  constructor(protected readonly executor: Db) {
    this.benchRuns = new BenchRunRepository(executor);
    this.benchLifecycle = new BenchLifecycleRepository(executor);
    this.benchTasks = new BenchTaskRepository(executor);
    this.runners = new RunnerRepository(executor);
    this.models = new ModelRepository(executor);
    this.sessions = new SessionRepository(executor);
    this.videos = new VideoRepository(executor);
    this.uploads = new VideoUploadRepository(executor);
    this.users = new UserRepository(executor);
    this.webSessions = new WebSessionRepository(executor);
    this.apiKeys = new ApiKeyRepository(executor);
    this.secrets = new ServiceSecretRepository(executor);
    this.idempotency = new IdempotencyRecordRepository(executor);
    this.judging = new JudgingRepository(executor);
  }

  /** The rate-limit buckets and sign-in counters; its statements read the clock it is made with. */
  rateLimits(now: () => number = Date.now): RateLimitStore {
    return new RateLimitStore(this.executor, now);
  }
}

/** The repositories of a database: what the composition root builds once and the services share. */
export class Repositories extends RepositorySet {
  /**
   * Runs `work` in one transaction and returns what it returns; when it throws, nothing it wrote
   * is committed. Not reentrant: the work uses the repositories it is given, not these.
   */
  transaction<T>(work: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    return this.executor.transaction().execute((trx) => work(new TransactionRepositories(trx)));
  }
}

/** The repositories of an open transaction. */
export class TransactionRepositories extends RepositorySet {
  /** The transaction itself, for a port that joins it (`JobQueue.enqueue`'s `executor`). */
  get queueExecutor(): QueueExecutor {
    return this.executor;
  }
}

// Outside repositories/ these are imported from here only (ESLint): repositories are built
// only by `Repositories`, and their types travel with it.
export type {
  ApiKeyRepository,
  BenchLifecycleRepository,
  BenchRunRepository,
  BenchTaskRepository,
  IdempotencyRecordRepository,
  JudgingRepository,
  ModelRepository,
  RunnerRepository,
  ServiceSecretRepository,
  SessionRepository,
  UserRepository,
  VideoRepository,
  VideoUploadRepository,
  WebSessionRepository,
};
export type { ArrivedVideo } from './video-uploads.repository.js';
export type { DeliveryOutcome, SettledTask } from './bench-lifecycle.repository.js';
export type { Owned } from './owned.js';
export type { ApiKeyRecord } from './api-keys.repository.js';
export type {
  BenchLogRecord,
  BenchRunHead,
  BenchRunRecord,
  ModelBaselineRecord,
  NewBenchLog,
} from './bench-runs.repository.js';
export type { BenchTaskRecord, ScoredClipRow } from './bench-tasks.repository.js';
export type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyClaimKey,
  StoredResponse,
} from './idempotency-records.repository.js';
export type {
  CandidatePair,
  JudgingCampaignRecord,
  JudgingClipRecord,
  JudgingItemRecord,
  JudgingJudgeRecord,
  JudgingOfferRecord,
  JudgingPairRecord,
  JudgingVoteRecord,
  ListedCampaign,
  SourceBenchClip,
  SourceRankClip,
  VoteRow,
} from './judging.repository.js';
export type { ModelRecord } from './models.repository.js';
export { RateLimitStore } from './rate-limits.repository.js';
export type { BucketResult, BucketRule } from './rate-limits.repository.js';
export type { RunnerRecord } from './runners.repository.js';
export type { SessionRecord } from './sessions.repository.js';
export type { InviteRecord, UserRecord } from './users.repository.js';
export type { ScoreFailureRecord, ScoreRecord, VideoRecord } from './videos.repository.js';
export type { WebSessionRecord } from './web-sessions.repository.js';
