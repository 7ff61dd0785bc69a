/** Runs a short-lived child process (ffprobe, `ffmpeg -codecs`) to completion, with abort and a time limit. */
import { spawn } from 'node:child_process';
import { EngineError } from '../contract.js';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Output beyond this many characters is dropped (a hostile file cannot make us buffer without bound). */
  maxOutputChars?: number;
}

export function runProcess(file: string, args: string[], options: RunOptions): Promise<ProcessResult> {
  const max = options.maxOutputChars ?? 4_000_000;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new EngineError('aborted', 'aborted'));
      return;
    }
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (stdout.length < max) stdout += d;
    });
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 64_000) stderr += d;
    });
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new EngineError('decode_failed', `cannot run ${file}: ${err.message}`, { cause: err }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) reject(new EngineError('aborted', 'aborted'));
      else if (timedOut)
        reject(new EngineError('decode_failed', `${file} did not finish within ${options.timeoutMs} ms`));
      else resolve({ code, stdout, stderr });
    });
  });
}
