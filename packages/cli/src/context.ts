/**
 * What every client command shares: the global options, the SDK client, output in `--json` or
 * human form, and one mapping from errors to exit codes.
 */
import type { Command } from 'commander';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  DEFAULT_BASE_URL,
  InvalidArgumentError,
  MissingApiKeyError,
  RequestAbortedError,
  ScoringFailedError,
  UploadSourceError,
  Vesta,
  VestaError,
  VideoGoneError,
  WaitTimeoutError,
  type FetchLike,
} from '@vesta/sdk';
import { colorEnabled, makeStyle, type Style } from './output/style.js';
import type { ProgressStream } from './output/progress.js';

/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The service (or the network to it) answered with an error, or scoring failed. */
  failure: 1,
  /** The command line or the local setup is wrong: bad flags, no API key, unreadable file. */
  usage: 2,
  /** Interrupted with Ctrl-C (SIGINT); in-flight requests were aborted. */
  interrupted: 130,
} as const;

/** The process around the CLI, passed in so that tests and embedders can supply their own. */
export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  env: Record<string, string | undefined>;
  /**
   * A signal aborted on Ctrl-C (SIGINT). Called only by commands that can be interrupted cleanly,
   * so that the handler is installed only for them (`serve` keeps its own shutdown handling).
   */
  interruptSignal(): AbortSignal;
  /** A fetch implementation for the SDK (defaults to the global one). */
  fetch?: FetchLike;
}

/** A usage error found by the CLI itself (beyond what commander checks). */
export class UsageError extends VestaError {
  constructor(code: string, message: string) {
    super(code, message);
  }
}

export interface GlobalOptions {
  baseUrl: string;
  apiKeyEnv: string;
  json: boolean;
}

/** Where keys are made and revoked (the spec's only place for them). */
export function dashboardKeysUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/dashboard/api-keys`;
}

/** The operator's fallback on the server host (README, "API keys"). */
export function beforeDashboard(verb: 'create' | 'revoke'): string {
  const command = verb === 'create' ? 'create-key --user NAME' : 'revoke-key PREFIX';
  return `sign in there; on the server host the operator can also run \`vesta admin ${command}\``;
}

/** The JSON written to stderr for every error under `--json`. */
export interface JsonError {
  error: { code: string; detail: string; status?: number; requestId?: string; [key: string]: unknown };
}

export class CliContext {
  exitCode: number = EXIT.ok;
  private interrupt: AbortSignal | undefined;
  readonly errStyle: Style;
  readonly outStyle: Style;

  constructor(readonly io: CliIo) {
    this.outStyle = makeStyle(colorEnabled(io.stdout, io.env));
    this.errStyle = makeStyle(colorEnabled(io.stderr, io.env));
  }

  /** Aborted on Ctrl-C; every request, upload and wait of a client command observes it. */
  get signal(): AbortSignal {
    this.interrupt ??= this.io.interruptSignal();
    return this.interrupt;
  }

  globals(cmd: Command): GlobalOptions {
    const o = cmd.optsWithGlobals<{ baseUrl?: string; apiKeyEnv?: string; json?: boolean }>();
    return {
      baseUrl: o.baseUrl ?? this.io.env.VESTA_BASE_URL ?? DEFAULT_BASE_URL,
      apiKeyEnv: o.apiKeyEnv ?? 'VESTA_API_KEY',
      json: o.json === true,
    };
  }

  /** An SDK client for the global options; the key is read from the named variable. */
  client(cmd: Command): Vesta {
    const g = this.globals(cmd);
    checkBaseUrl(g.baseUrl, cmd.optsWithGlobals<{ baseUrl?: string }>().baseUrl !== undefined);
    const apiKey = this.io.env[g.apiKeyEnv];
    if (!apiKey) {
      throw new UsageError(
        'missing_api_key',
        `No API key: the ${g.apiKeyEnv} environment variable is not set. Create a key in the dashboard (${dashboardKeysUrl(g.baseUrl)}; ${beforeDashboard('create')}), then export ${g.apiKeyEnv}=<key>${g.apiKeyEnv === 'VESTA_API_KEY' ? ' (or name another variable with --api-key-env)' : ''}.`,
      );
    }
    return new Vesta({ apiKey, baseUrl: g.baseUrl, source: 'cli', fetch: this.io.fetch });
  }

  /** Writes the result: `json` as one JSON document under `--json`, else the human text. */
  print(cmd: Command, json: unknown, human: (style: Style) => string): void {
    if (this.globals(cmd).json) this.io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    else {
      const text = human(this.outStyle);
      if (text) this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  /** Human-only notes (progress, hints) go to stderr so that stdout stays parseable. */
  note(cmd: Command, text: string): void {
    if (!this.globals(cmd).json) this.io.stderr.write(`${text}\n`);
  }

  /** Reports an error on stderr (JSON under `--json`) and records the exit code. */
  fail(cmd: Command | undefined, err: unknown): void {
    const json = cmd ? this.globals(cmd).json : false;
    const { code, body, exitCode } = describeError(
      err,
      this.interrupt,
      cmd ? this.globals(cmd).baseUrl : undefined,
    );
    this.exitCode = exitCode;
    if (json) {
      this.io.stderr.write(`${JSON.stringify(body)}\n`);
      return;
    }
    const s = this.errStyle;
    const extra: string[] = [];
    if (body.error.status !== undefined) extra.push(`HTTP ${body.error.status}`);
    if (body.error.requestId) extra.push(`request ${body.error.requestId}`);
    const suffix = extra.length ? s.dim(` (${extra.join(', ')})`) : '';
    this.io.stderr.write(`${s.red('error')} ${s.bold(code)}: ${body.error.detail}${suffix}\n`);
  }
}

/**
 * The service address must be an absolute http(s) URL. `localhost:8080` is refused (a usage error,
 * exit 2) rather than completed with `http://`: a guessed scheme could send the key in clear text
 * to a host that expects https.
 */
export function checkBaseUrl(baseUrl: string, fromFlag: boolean): void {
  let ok = false;
  try {
    const url = new URL(baseUrl);
    ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) {
    const source = fromFlag ? '--base-url' : 'VESTA_BASE_URL';
    throw new UsageError(
      'invalid_base_url',
      `${source} must be an http:// or https:// address, e.g. http://localhost:8080 (got ${JSON.stringify(baseUrl)}).`,
    );
  }
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Maps any thrown value to its code, JSON body and exit code. `baseUrl` (the service address in
 * use) tells a service that cannot be reached from an upload URL elsewhere (an S3 bucket) that
 * cannot.
 */
export function describeError(
  err: unknown,
  signal: AbortSignal | undefined,
  baseUrl?: string,
): { code: string; body: JsonError; exitCode: number } {
  if (
    err instanceof RequestAbortedError ||
    (signal?.aborted === true && err instanceof Error && err.name === 'AbortError')
  ) {
    return {
      code: 'interrupted',
      body: { error: { code: 'interrupted', detail: 'Interrupted; the request was aborted.' } },
      exitCode: EXIT.interrupted,
    };
  }
  if (err instanceof ApiError) {
    return {
      code: err.code,
      body: {
        error: {
          code: err.code,
          detail: err.detail,
          status: err.status,
          ...(err.requestId ? { requestId: err.requestId } : {}),
        },
      },
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof ApiConnectionError || err instanceof ApiTimeoutError) {
    const elsewhere = baseUrl !== undefined && originOf(err.url) !== originOf(baseUrl);
    const hint = !(err instanceof ApiConnectionError)
      ? ''
      : elsewhere
        ? '. That is the service’s blob store (the clip goes straight to it): it must be reachable from this machine.'
        : '. Is the service running there? Set --base-url or VESTA_BASE_URL.';
    return {
      code: err.code,
      body: { error: { code: err.code, detail: `${err.message}${hint}`, url: err.url } },
      exitCode: EXIT.failure,
    };
  }
  if (
    err instanceof MissingApiKeyError ||
    err instanceof UploadSourceError ||
    err instanceof InvalidArgumentError ||
    err instanceof UsageError
  ) {
    return { code: err.code, body: { error: { code: err.code, detail: err.message } }, exitCode: EXIT.usage };
  }
  if (err instanceof ScoringFailedError || err instanceof WaitTimeoutError || err instanceof VideoGoneError) {
    // The clip exists on the server: say which one, so that a script can look it up later.
    return {
      code: err.code,
      body: { error: { code: err.code, detail: err.message, videoId: err.videoId } },
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof VestaError) {
    return {
      code: err.code,
      body: { error: { code: err.code, detail: err.message } },
      exitCode: EXIT.failure,
    };
  }
  const detail = err instanceof Error ? err.message : String(err);
  return { code: 'cli_error', body: { error: { code: 'cli_error', detail } }, exitCode: EXIT.failure };
}

/**
 * Wraps a command action: errors are reported (JSON or human) and turned into the exit code.
 * Commander passes the command object last.
 */
export function action<A extends unknown[]>(
  ctx: CliContext,
  run: (cmd: Command, ...args: A) => Promise<void>,
): (...args: [...A, Record<string, unknown>, Command]) => Promise<void> {
  return async (...all) => {
    const cmd = all[all.length - 1] as Command;
    const args = all.slice(0, -2) as unknown as A;
    try {
      await run(cmd, ...args);
    } catch (err) {
      ctx.fail(cmd, err);
    }
  };
}
