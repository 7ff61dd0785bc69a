/**
 * Generators for `vesta runner start`: a user's shell command (`--command`) or the built-in DEMO
 * generator (`--demo`). Each task gets a fresh temporary directory, removed when the task ends.
 *
 * The command runs under `/bin/sh -c` in its own process group (so a timeout, a cancel or a stop
 * ends everything it started). Placeholders are replaced by shell-quoted values; the same values
 * are in the environment. Its stdout and stderr lines become log lines of the run.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { GenerationError, type ClipOutput, type GenerateContext, type GenerateFn } from '@vesta/sdk';

/** Placeholders `--command` may use (each replaced by a shell-quoted value). */
export const PLACEHOLDERS = ['prompt', 'seed', 'output', 'sample_index', 'task_id', 'run_id'] as const;

/** Quotes `value` for a POSIX shell: one single-quoted word, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Replaces `{prompt}`, `{seed}`, `{output}`, … with shell-quoted values; other braces are kept. */
export function fillCommand(template: string, values: Record<(typeof PLACEHOLDERS)[number], string>): string {
  return template.replace(/\{(prompt|seed|output|sample_index|task_id|run_id)\}/g, (_m, name: string) =>
    shellQuote(values[name as (typeof PLACEHOLDERS)[number]]),
  );
}

/** The environment of one task's command. */
export function taskEnv(
  base: Record<string, string | undefined>,
  ctx: GenerateContext,
  output: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !/^VESTA_API_KEY$/.test(k)) env[k] = v;
  return {
    ...env,
    VESTA_PROMPT: ctx.prompt,
    VESTA_SEED: String(ctx.seed),
    VESTA_OUTPUT: output,
    VESTA_SAMPLE_INDEX: String(ctx.sampleIndex),
    VESTA_TASK_ID: ctx.task.id,
    VESTA_RUN_ID: ctx.task.runId,
    VESTA_MODEL_ID: ctx.task.modelId,
    VESTA_AUXILIARY: JSON.stringify(ctx.auxiliary ?? {}),
    VESTA_DIMENSIONS: ctx.dimensions.join(','),
  };
}

/** Video containers recognised by their first bytes, for a clear local error before uploading. */
export function looksLikeVideo(head: Uint8Array): boolean {
  const ascii = (a: number, b: number): string => String.fromCharCode(...head.subarray(a, b));
  if (head.length < 12) return false;
  if (ascii(4, 8) === 'ftyp' || ['moov', 'mdat', 'free', 'wide'].includes(ascii(4, 8))) return true;
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return true; // WebM/MKV
  if (ascii(0, 4) === 'RIFF' && ascii(8, 11) === 'AVI') return true;
  if (ascii(0, 4) === 'GIF8' || ascii(0, 4) === 'OggS' || ascii(0, 3) === 'FLV') return true;
  if (head.length >= 189 && head[0] === 0x47 && head[188] === 0x47) return true; // MPEG-TS
  if (head[0] === 0 && head[1] === 0 && head[2] === 1 && (head[3] === 0xba || head[3] === 0xb3)) return true;
  return false;
}

export interface CommandGeneratorOptions {
  command: string;
  /** Seconds one run of the command may take. */
  timeoutSeconds: number;
  /** Extra runs after a failed one, within the same claim. */
  retries: number;
  env: Record<string, string | undefined>;
  /** Seconds between SIGTERM and SIGKILL when the command must stop. */
  killGraceSeconds?: number;
}

function outputPathIn(dir: string): string {
  return path.join(dir, 'clip.mp4');
}

async function readHead(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buf = new Uint8Array(192);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Runs one attempt of the command; resolves when it exited 0, else throws a GenerationError. */
async function runOnce(opts: CommandGeneratorOptions, ctx: GenerateContext, output: string): Promise<void> {
  const command = fillCommand(opts.command, {
    prompt: ctx.prompt,
    seed: String(ctx.seed),
    output,
    sample_index: String(ctx.sampleIndex),
    task_id: ctx.task.id,
    run_id: ctx.task.runId,
  });
  const child = spawn('/bin/sh', ['-c', command], {
    env: taskEnv(opts.env, ctx, output),
    cwd: path.dirname(output),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const tail: string[] = [];
  const pipe = (stream: NodeJS.ReadableStream, level: 'info' | 'warn'): Promise<void> => {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      ctx.log(line, level);
      if (level === 'warn') {
        tail.push(line);
        if (tail.length > 5) tail.shift();
      }
    });
    return new Promise((resolve) => lines.once('close', resolve));
  };
  const outputs = Promise.all([pipe(child.stdout, 'info'), pipe(child.stderr, 'warn')]);
  let stopped: 'timeout' | 'abort' | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const killGroup = (sig: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // Already gone.
    }
  };
  const terminate = (why: 'timeout' | 'abort'): void => {
    if (stopped) return;
    stopped = why;
    killGroup('SIGTERM');
    killTimer = setTimeout(() => killGroup('SIGKILL'), (opts.killGraceSeconds ?? 5) * 1000);
  };
  const timer = setTimeout(() => terminate('timeout'), opts.timeoutSeconds * 1000);
  const onAbort = (): void => terminate('abort');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c, s) => resolve([c, s]));
    });
    await Promise.race([outputs, new Promise((r) => setTimeout(r, 1000))]);
    if (stopped === 'abort') throw new GenerationError('the command was stopped', { retryable: true });
    if (stopped === 'timeout')
      throw new GenerationError(`the command did not finish within ${opts.timeoutSeconds} s and was killed`);
    if (code !== 0) {
      const why = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${code}`;
      throw new GenerationError(
        `the command ${why}${tail.length > 0 ? `; last stderr: ${tail.join(' | ').slice(0, 500)}` : ''}`,
      );
    }
  } catch (err) {
    if (err instanceof GenerationError) throw err;
    throw new GenerationError(
      `the command could not run: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    // The shell is gone; end anything it left running in its group.
    killGroup('SIGKILL');
    if (killTimer) clearTimeout(killTimer);
  }
  let size: number;
  try {
    const info = await stat(output);
    if (!info.isFile())
      throw new GenerationError(`the command wrote something that is not a file at ${output}`);
    size = info.size;
  } catch (err) {
    if (err instanceof GenerationError) throw err;
    throw new GenerationError(
      `the command exited 0 but wrote no file at ${output} ($VESTA_OUTPUT / {output})`,
    );
  }
  if (size === 0) throw new GenerationError(`the command wrote an empty file at ${output}`);
  if (!looksLikeVideo(await readHead(output)))
    throw new GenerationError(
      `the command's output at ${output} is not a video (no known container signature: MP4/MOV, WebM/MKV, AVI, GIF, Ogg, FLV, MPEG)`,
    );
}

/** A generator that runs `opts.command` per task (see the module comment). */
export function commandGenerator(opts: CommandGeneratorOptions): GenerateFn {
  return async (ctx): Promise<ClipOutput> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vesta-runner-'));
    const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
    const output = outputPathIn(dir);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await runOnce(opts, ctx, output);
          return { clip: output, fileName: 'clip.mp4', cleanup };
        } catch (err) {
          if (ctx.signal.aborted || attempt >= opts.retries) throw err;
          ctx.log(
            `${err instanceof Error ? err.message : String(err)}; running it again (${attempt + 1} of ${opts.retries})`,
            'warn',
          );
          await rm(output, { force: true });
        }
      }
    } catch (err) {
      await cleanup();
      throw err;
    }
  };
}

/** The DEMO generator (`--demo`): procedural clips from @vesta/engine, for the `vesta-demo` model. */
export async function demoGenerator(): Promise<GenerateFn> {
  const { generateDemoClip } = await import('@vesta/engine');
  return async (ctx): Promise<ClipOutput> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vesta-demo-'));
    const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
    try {
      const clip = await generateDemoClip({
        prompt: ctx.prompt,
        seed: ctx.seed,
        auxiliary: ctx.auxiliary,
        outPath: outputPathIn(dir),
        signal: ctx.signal,
      });
      ctx.log(
        `demo clip: ${clip.width}x${clip.height}, ${clip.frames} frames at ${clip.fps} fps, ${clip.bytes} bytes`,
      );
      return { clip: clip.path, fileName: 'demo.mp4', contentType: 'video/mp4', cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  };
}
