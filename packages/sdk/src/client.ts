/** The Vesta client: one instance per configuration, no global state. */
import type { BackoffPolicy } from './core/backoff.js';
import { MissingApiKeyError } from './core/errors.js';
import { HttpClient, globalFetch, type FetchLike } from './core/http.js';
import type { Platform } from './core/platform.js';
import {
  AccountResource,
  ApiKeysResource,
  AuthResource,
  InvitesResource,
  UsersResource,
} from './resources/accounts.js';
import { BenchResource } from './resources/bench.js';
import { DimensionsResource, ModelsResource } from './resources/discovery.js';
import { RunnersResource } from './resources/runners.js';
import { RankResource, ScoreResource } from './resources/sessions.js';
import { VideosResource } from './resources/videos.js';
import { JudgingResource } from './resources/judging.js';
import { startRunner, type Runner, type RunnerOptions } from './runner/loop.js';
import { runnerApiOver } from './runner/protocol.js';
import type { ClipUploadDeps } from './runner/upload.js';

export const DEFAULT_BASE_URL = 'http://localhost:8080';
export const DEFAULT_API_KEY_ENV = 'VESTA_API_KEY';
export const DEFAULT_BASE_URL_ENV = 'VESTA_BASE_URL';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface VestaOptions {
  /** The API key. When absent, read from the environment variable `apiKeyEnv` (Node only). */
  apiKey?: string;
  /**
   * true: authenticate with the web dashboard's session cookie instead of a key (a page served by
   * the Vesta server itself). No key is read or sent; `auth.signIn` (or `auth.session`) stores the
   * session's CSRF token, sent as `X-CSRF-Token` on every state-changing request.
   */
  session?: boolean;
  /** Name of the environment variable holding the key (default `VESTA_API_KEY`). */
  apiKeyEnv?: string;
  /** Service address (default `VESTA_BASE_URL` in Node, else `http://localhost:8080`). */
  baseUrl?: string;
  /** Per-attempt timeout in ms, covering headers and body (default 60 000). */
  timeoutMs?: number;
  /** Retries after the first attempt on connection errors, timeouts, 408, 429 and 5xx (default 2). */
  maxRetries?: number;
  /** A fetch implementation (a proxy-aware one, say); defaults to the global fetch. */
  fetch?: FetchLike;
  /** Sent as `X-Service-Source` for the server's observability (default `sdk`). */
  source?: string;
  /** Backoff timing between retries (default 0.5 s doubling, capped at 8 s, up to 25 % jitter). */
  backoff?: BackoffPolicy;
}

/**
 * The client. Each namespace maps to one part of the REST API.
 * @example
 * import { Vesta } from '@vesta/sdk';
 * const vesta = new Vesta(); // reads VESTA_API_KEY
 * const { items } = await vesta.dimensions.list();
 */
export class VestaClient {
  readonly baseUrl: string;
  /** The Score session and its uploads. */
  readonly score: ScoreResource;
  /** The Rank session, its uploads and leaderboard. */
  readonly rank: RankResource;
  /** Bench runs. */
  readonly bench: BenchResource;
  /** Stored clips' bytes (for players and downloads). */
  readonly videos: VideosResource;
  /** Evaluation dimensions. */
  readonly dimensions: DimensionsResource;
  /** Models. */
  readonly models: ModelsResource;
  /** Runners and the runner protocol (one method per operation; `createRunner` runs the loop). */
  readonly runners: RunnersResource;
  /** Dashboard sign-in, setup, invites and the current session (session mode). */
  readonly auth: AuthResource;
  /** The signed-in account's password and sessions (session mode). */
  readonly account: AccountResource;
  /** API keys of the signed-in account (session mode only: the server refuses keys here). */
  readonly apiKeys: ApiKeysResource;
  /** Users (admin, session mode). */
  readonly users: UsersResource;
  /** Invites (admin, session mode). */
  /** Judging campaigns: blind pairwise votes on the caller's clips (issue #23). */
  readonly judging: JudgingResource;
  readonly invites: InvitesResource;
  /** What the runner loop needs: the runner endpoints and the upload transport. */
  readonly #runnerDeps: ClipUploadDeps;

  constructor(options: VestaOptions, platform: Platform) {
    const envName = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
    const apiKey = options.session === true ? undefined : (options.apiKey ?? platform.readEnv(envName));
    if (options.session !== true && !apiKey)
      throw new MissingApiKeyError(platform.hasEnv ? envName : undefined);
    const baseUrl = options.baseUrl ?? platform.readEnv(DEFAULT_BASE_URL_ENV) ?? DEFAULT_BASE_URL;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const userFetch = options.fetch;
    const fetchImpl: FetchLike = userFetch ? (input, init) => userFetch(input, init) : globalFetch;
    const http = new HttpClient({
      apiKey,
      baseUrl,
      timeoutMs,
      maxRetries,
      fetch: fetchImpl,
      source: options.source ?? 'sdk',
      backoff: options.backoff,
    });
    this.baseUrl = http.baseUrl;
    const deps = { http, platform, maxRetries, timeoutMs };
    this.score = new ScoreResource(deps);
    this.rank = new RankResource(deps);
    this.bench = new BenchResource(http, { startRunner: (o) => this.createRunner(o) });
    this.videos = new VideosResource(http);
    this.judging = new JudgingResource(http);
    this.dimensions = new DimensionsResource(http);
    this.models = new ModelsResource(http);
    this.runners = new RunnersResource(http);
    this.auth = new AuthResource(http);
    this.account = new AccountResource(http);
    this.apiKeys = new ApiKeysResource(http);
    this.users = new UsersResource(http);
    this.invites = new InvitesResource(http);
    this.#runnerDeps = { http, platform, maxRetries, timeoutMs, api: runnerApiOver(this.runners) };
    // The key lives only in the HTTP core's private field, so logging or serialising the client
    // never shows it.
  }

  /**
   * Starts a runner in this process: it registers, claims tasks of the given models, calls
   * `generate` for each and uploads the clips (see docs/runners.md).
   * @example
   * const runner = vesta.createRunner({ name: 'gpu-1', models: ['my-model'], generate: async ({ prompt, seed }) => render(prompt, seed) });
   * process.on('SIGTERM', () => void runner.stop());
   * await runner.done;
   */
  createRunner(options: RunnerOptions): Runner {
    return startRunner(this.#runnerDeps, options);
  }
}
