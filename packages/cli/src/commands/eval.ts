/**
 * `vesta eval FILE... [--dimensions a,b|all] [--json]`: scores local files with the engine in
 * this process (no server, no API key). Output shapes and exit codes: docs/decoding.md ("vesta eval").
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { processHost } from './host.js';
import { PullProgress, type PullEvent } from '../output/progress.js';
import { colorEnabled, makeStyle } from '../output/style.js';
import {
  DIMENSION_IDS,
  EngineError,
  createEngine,
  createModelStore,
  inferenceOptionsFromEnv,
  modelStoreOptionsFromEnv,
} from '@vesta/engine';
import type {
  AuxiliaryInfo,
  DimensionId,
  DimensionInfo,
  Engine,
  EvaluationResult,
  VideoProbe,
} from '@vesta/engine';

/** Where the command writes and how it reports its exit code. `CliContext` satisfies it. */
export interface EvalHost {
  io: {
    stdout: { write(chunk: string): unknown };
    /** Progress is drawn as a bar when it is a terminal (`isTTY`), as lines otherwise. */
    stderr: { write(chunk: string): unknown; isTTY?: boolean; columns?: number };
    /**
     * Environment for the model store and inference (`VESTA_MODELS_DIR`, `VESTA_MODELS_LOCAL_DIR`,
     * `VESTA_MODELS_MIRROR`, `VESTA_OFFLINE`, `VESTA_MODELS_MANIFEST`, `VESTA_EP`, `VESTA_PRECISION`,
     * …): the CLI context's, as every other command reads it; default `process.env`.
     */
    env?: Record<string, string | undefined>;
  };
  exitCode: number;
  /** Aborts evaluation (Ctrl-C); optional. */
  readonly signal?: AbortSignal;
}

export interface EvalOptions {
  dimensions?: string;
  json?: boolean;
  prompt?: string;
  threads?: string;
  /** JSON object of auxiliary prompt info (object, color, relationship, object_a, object_b, scene, appearance_style, action). */
  auxiliary?: string;
}

function parseAuxiliary(text: string | undefined): AuxiliaryInfo | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EvalUsageError('usage', '--auxiliary must be a JSON object, e.g. \'{"object":"cat"}\'');
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    Object.values(value).some((v) => typeof v !== 'string')
  ) {
    throw new EvalUsageError('usage', '--auxiliary must be a JSON object of strings');
  }
  return value;
}

/** One file's entry in `--json` output (`version` 1). */
export type EvalFileResult =
  | ({ file: string; ok: true } & EvaluationResult)
  | { file: string; ok: false; error: { code: string; detail: string } };

export interface EvalJson {
  version: 1;
  dimensions: DimensionId[];
  results: EvalFileResult[];
}

export const EVAL_EXIT = { ok: 0, failure: 1, usage: 2 } as const;

class EvalUsageError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The dimensions to score: `all` (the 16; unavailable ones are reported as failures), a list, or
 * by default every dimension whose default method runs on a bare clip (no model, no auxiliary
 * info; prompt-reading ones only when `--prompt` is given).
 */
export function selectDimensions(
  spec: string | undefined,
  catalog: readonly DimensionInfo[],
  hasPrompt: boolean,
): { ids: DimensionId[]; explicit: boolean } {
  if (spec === 'all') return { ids: [...DIMENSION_IDS], explicit: false };
  if (spec !== undefined) {
    const ids = spec.split(/[,\s]+/).filter(Boolean);
    const unknown = ids.filter((d) => !(DIMENSION_IDS as readonly string[]).includes(d));
    if (ids.length === 0)
      throw new EvalUsageError('usage', '--dimensions needs at least one dimension id, or "all"');
    if (unknown.length > 0) {
      throw new EvalUsageError(
        'unknown_dimension',
        `unknown dimension(s): ${unknown.join(', ')} (known: ${DIMENSION_IDS.join(', ')})`,
      );
    }
    return { ids: [...new Set(ids as DimensionId[])], explicit: true };
  }
  const ids = catalog
    .filter((d) => {
      const m = d.methods.find((x) => x.id === d.defaultMethod);
      return m?.available === true && m.requires.auxiliary.length === 0 && (hasPrompt || !m.requires.prompt);
    })
    .map((d) => d.id);
  return { ids, explicit: false };
}

function fmt(n: number, digits = 4): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(digits);
}

function describeProbe(p: VideoProbe): string {
  const rot = p.rotation ? `, rotated ${p.rotation}°` : '';
  const assumed = p.fpsAssumed ? ' (assumed: the clip states no usable rate)' : '';
  return `${p.codec} ${p.displayWidth}x${p.displayHeight}${rot}, ${fmt(p.fps, 2)} fps${assumed}, ${p.frameCount} frames, ${fmt(p.durationSeconds, 2)} s`;
}

/** Human output: one table per clip. */
export function formatHuman(file: string, r: EvaluationResult): string {
  const rows: string[][] = [['dimension', 'value', 'method', 'frames', 'ms']];
  for (const s of r.scores) {
    rows.push([
      s.dimension,
      fmt(s.value),
      `${s.method} ${s.methodVersion}`,
      `${s.frames.count} @ ${s.frames.width}x${s.frames.height}`,
      fmt(Math.round(s.elapsedMs)),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const lines = rows.map((row) =>
    `  ${row.map((cell, c) => (c === 1 || c === 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ')}`.trimEnd(),
  );
  const out = [
    `${file}  (${describeProbe(r.probe)}; decode ${Math.round(r.decodeMs)} ms, total ${Math.round(r.elapsedMs)} ms)`,
  ];
  if (r.scores.length > 0) out.push(...lines);
  for (const f of r.failures) out.push(`  ${f.dimension}: not scored (${f.code}): ${f.detail}`);
  return `${out.join('\n')}\n`;
}

function errorJson(code: string, detail: string, file?: string): string {
  return `${JSON.stringify({ error: { code, detail, ...(file !== undefined ? { file } : {}) } })}\n`;
}

/** Runs the command; resolves with its exit code. */
export async function runEval(files: string[], options: EvalOptions, host: EvalHost): Promise<number> {
  const { stdout, stderr } = host.io;
  let threads: number | undefined;
  if (options.threads !== undefined) {
    threads = Number(options.threads);
    if (!Number.isInteger(threads) || threads < 1) {
      stderr.write(errorJson('usage', '--threads must be a whole number of at least 1'));
      return EVAL_EXIT.usage;
    }
  }
  if (files.length === 0) {
    stderr.write(errorJson('usage', 'give at least one video file'));
    return EVAL_EXIT.usage;
  }
  let engine: Engine;
  let auxiliary: AuxiliaryInfo | undefined;
  let progress: PullProgress | undefined;
  let unreachable: Array<{ origin: string; until: number }> = [];
  try {
    auxiliary = parseAuxiliary(options.auxiliary);
    const env = host.io.env ?? process.env;
    // Human mode shows a pull on first use (a bar with sizes and an ETA on a terminal, a line per
    // file otherwise); --json keeps stderr for errors.
    let hinted = false;
    progress = options.json ? undefined : new PullProgress(stderr, makeStyle(colorEnabled(stderr, env)));
    const pulls = progress;
    const store = createModelStore(modelStoreOptionsFromEnv(env));
    // Why model-backed methods are skipped, when a source was found unreachable moments ago
    // (said once the arguments are known to be good, so a usage error stays one JSON line).
    unreachable = options.json ? [] : store.unreachableSources();
    engine = createEngine({
      ...(threads !== undefined ? { threads } : {}),
      models: store,
      inference: inferenceOptionsFromEnv(env),
      ...(pulls
        ? {
            onModelProgress: (e: PullEvent) => {
              if (!hinted) {
                hinted = true;
                stderr.write('Fetching models on first use (`vesta models pull --all` fetches them ahead)\n');
              }
              pulls.onProgress(e);
            },
          }
        : {}),
    });
  } catch (err) {
    stderr.write(errorJson('usage', (err as Error).message));
    return EVAL_EXIT.usage;
  }
  try {
    let selection: { ids: DimensionId[]; explicit: boolean };
    try {
      selection = selectDimensions(options.dimensions, engine.dimensions(), Boolean(options.prompt?.trim()));
    } catch (err) {
      if (err instanceof EvalUsageError) {
        stderr.write(errorJson(err.code, err.message));
        return EVAL_EXIT.usage;
      }
      throw err;
    }
    if (selection.ids.length === 0) {
      stderr.write(
        errorJson('usage', 'no dimension can be scored on a bare clip in this build; pass --dimensions'),
      );
      return EVAL_EXIT.usage;
    }
    if (unreachable.length > 0) {
      const until = new Date(Math.max(...unreachable.map((u) => u.until)));
      stderr.write(
        `Model source${unreachable.length === 1 ? '' : 's'} ${unreachable.map((u) => u.origin).join(', ')} ` +
          `unreachable moments ago: models not yet installed are not fetched until ${until.toISOString().slice(11, 16)} UTC ` +
          '(the model-free methods answer); `vesta models pull --all` tries again now\n',
      );
    }
    const results: EvalFileResult[] = [];
    let failed = false;
    for (const file of files) {
      if (host.signal?.aborted) break;
      try {
        const r = await engine.evaluate(resolve(file), {
          dimensions: selection.ids,
          ...(options.prompt?.trim() ? { prompt: options.prompt } : {}),
          ...(auxiliary ? { auxiliary } : {}),
          ...(host.signal ? { signal: host.signal } : {}),
        });
        results.push({ file, ok: true, ...r });
        if (selection.explicit && r.failures.length > 0) failed = true;
        if (!options.json) stdout.write(formatHuman(file, r));
      } catch (err) {
        const code = err instanceof EngineError ? err.code : 'decode_failed';
        const detail = err instanceof Error ? err.message : String(err);
        results.push({ file, ok: false, error: { code, detail } });
        failed = true;
        stderr.write(errorJson(code, detail, file));
        if (code === 'aborted') break;
      }
    }
    if (options.json) {
      const doc: EvalJson = { version: 1, dimensions: selection.ids, results };
      stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    }
    return failed ? EVAL_EXIT.failure : EVAL_EXIT.ok;
  } finally {
    progress?.end();
    await engine.close();
  }
}

/**
 * Registers `vesta eval`. With `host` (e.g. the CLI's context) output goes to `host.io` and the
 * exit code to `host.exitCode`; without it, to the process.
 *
 * @example
 *   registerEvalCommand(program, ctx);
 *   // $ vesta eval clip.mp4 --dimensions temporal_flickering,dynamic_degree --json
 */
export function registerEvalCommand(program: Command, host?: EvalHost): void {
  program
    .command('eval')
    .description('score local video files with the built-in engine (no server needed)')
    .argument('<files...>', 'video files (MP4, MOV, WebM, AVI, GIF, …)')
    .option(
      '--dimensions <ids>',
      'comma-separated dimension ids, or "all" (default: every dimension that runs on a bare clip)',
    )
    .option('--prompt <text>', "the clip's text prompt (enables prompt-reading dimensions)")
    .option(
      '--auxiliary <json>',
      'auxiliary prompt info for semantic dimensions, e.g. \'{"object":"cat","color":"red"}\'',
    )
    .option('--threads <n>', 'worker threads for pixel work (default: min(2, CPU cores))')
    .option('--json', 'print a stable JSON document on stdout (errors as JSON on stderr)')
    .addHelpText(
      'after',
      `
Exit codes: 0 scored; 1 a file could not be evaluated (or an explicitly requested dimension failed); 2 usage.

Examples:
  $ vesta eval clip.mp4
  $ vesta eval a.mp4 b.gif --dimensions temporal_flickering,dynamic_degree --json
  $ vesta eval clip.mp4 --dimensions all --prompt "a cat surfing a wave"
  $ vesta eval clip.mp4 --dimensions object_class,color --auxiliary '{"object":"car","color":"red"}'

Model-backed methods read their models from the model store (vesta models pull; VESTA_MODELS_DIR,
VESTA_MODELS_LOCAL_DIR, VESTA_MODELS_MIRROR, VESTA_OFFLINE=1); without them the model-free methods answer.
`,
    )
    .action(async (files: string[], options: EvalOptions) => {
      const target = host ?? processHost();
      target.exitCode = await runEval(files, options, target);
    });
}
