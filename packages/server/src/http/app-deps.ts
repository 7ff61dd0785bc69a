/**
 * What every route module receives: the parsed config, the ports, and the services built by the
 * composition root. Route modules read them at request time only, never at import.
 */
import type { Engine } from '@vesta/engine';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ServerConfig } from '../config.js';
import type { Db } from '../db/connection.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Repositories } from '../repositories/index.js';
import type { AccountService } from '../services/account.service.js';
import type { ApiKeyService } from '../services/api-key.service.js';
import type { BenchArea } from '../services/bench-area.js';
import type { SessionService } from '../services/session.service.js';
import type { UploadReceiverService } from '../services/upload-receiver.service.js';
import type { UploadService } from '../services/upload.service.js';
import type { UserAdminService } from '../services/user-admin.service.js';
import type { VideoService } from '../services/video.service.js';
import type { ClipEvaluationService } from '../services/clip-evaluation.service.js';
import type { ClipIntakeService } from '../services/clip-intake.service.js';
import type { JudgingService } from '../services/judging.service.js';

export interface CoreServices {
  apiKeys: ApiKeyService;
  accounts: AccountService;
  users: UserAdminService;
  sessions: SessionService;
  uploads: UploadService;
  uploadReceiver: UploadReceiverService;
  videos: VideoService;
  /** Clips' verification and queueing (confirm, a runner's complete). */
  intake: ClipIntakeService;
  /** Clips' evaluation (the `evaluate-video` job). */
  evaluations: ClipEvaluationService;
  /** Blind pairwise judging campaigns (issue #23). */
  judging: JudgingService;
}

/** One readiness check for /readyz; throws when its dependency is not usable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface AppDeps {
  config: ServerConfig;
  /** The repositories (the only way anything above `repositories/` reaches the database). */
  repos: Repositories;
  /** The database itself: for tests and diagnostics that inspect rows, never for a route. */
  db: Db;
  blobs: BlobStore;
  jobs: JobQueue;
  engine: Engine;
  services: CoreServices;
  /** Bench runs, runners, models and the task notifier (one set per process). */
  bench: BenchArea;
  readiness: ReadinessCheck[];
}

export interface RouteModuleOptions {
  deps: AppDeps;
}

/** The Fastify instance route modules register on (TypeBox type provider). */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * A route module registers one operation (or a small group) on its own encapsulated instance.
 * It is synchronous: it only declares routes, hooks and parsers; `buildApp` wraps it in a plugin.
 */
export type RouteModule = (app: TypedApp, options: RouteModuleOptions) => void;

/** Route-level options read by the app's hooks (auth, idempotency, the auth walker test). */
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: no X-API-Key (health, metrics, docs, the token-authenticated upload PUT);
     * 'web-session': only a signed-in dashboard (web) session (key management, account, users).
     */
    auth?: boolean | 'web-session';
    /** true: refuse cross-origin browsers (public dashboard routes: setup, sign-in, invites). */
    sameOrigin?: boolean;
    /** true: only an admin's dashboard session. */
    admin?: boolean;
    /** true: a state-changing POST that honours Idempotency-Key. */
    idempotent?: boolean;
    /** The kind of resource the `{id}` path parameter names (e.g. `score-session`), for ownership tests. */
    resource?: string;
    /** true: the route takes no body; any field sent is 400 invalid_field. */
    noBody?: boolean;
  }
}
