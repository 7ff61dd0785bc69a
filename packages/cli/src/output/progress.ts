/** Upload and model-pull progress bars and scoring-state lines, drawn on stderr. */
import type { UploadProgressEvent } from '@vesta/sdk';
import type { Style } from './style.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

/** A byte count for people: B, KB, MB or GB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/**
 * A redrawn bar on a TTY (at most ~10 redraws a second); on other streams one line per phase, so
 * logs stay readable.
 */
export class UploadProgress {
  private lastDraw = 0;
  private drewBar = false;
  private lastPhase: string | undefined;
  private waitStarted: number | undefined;

  constructor(
    private readonly out: ProgressStream,
    private readonly style: Style,
    private readonly fileLabel: string,
  ) {}

  readonly onProgress = (event: UploadProgressEvent): void => {
    if (event.phase === 'upload') return this.bytes(event.loaded, event.total);
    this.endBar();
    if (event.phase === 'confirm') {
      this.out.write(`${this.style.dim('Confirming upload')} ${event.videoId}\n`);
      return;
    }
    this.waitStarted ??= Date.now();
    const elapsed = ((Date.now() - this.waitStarted) / 1000).toFixed(1);
    const colour =
      event.state === 'scored'
        ? this.style.green
        : event.state === 'failed'
          ? this.style.red
          : this.style.cyan;
    this.out.write(
      `${this.style.dim('Video')} ${event.videoId} ${colour(event.state)} ${this.style.dim(`(${elapsed} s)`)}\n`,
    );
  };

  private bytes(loaded: number, total: number | undefined): void {
    if (!this.out.isTTY) {
      if (this.lastPhase !== 'upload')
        this.out.write(
          `Uploading ${this.fileLabel}${total !== undefined ? ` (${formatBytes(total)})` : ''}\n`,
        );
      this.lastPhase = 'upload';
      return;
    }
    const now = Date.now();
    const done = total !== undefined && loaded >= total;
    if (!done && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const width = Math.max(10, Math.min(30, (this.out.columns ?? 80) - 50));
    let bar: string;
    if (total && total > 0) {
      const ratio = Math.min(1, loaded / total);
      const filled = Math.round(ratio * width);
      bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${formatBytes(loaded)}/${formatBytes(total)}`;
    } else {
      bar = `${formatBytes(loaded)}`;
    }
    this.out.write(`\r\u001b[2KUploading ${this.fileLabel} ${this.style.cyan(bar)}`);
    this.drewBar = true;
  }

  /** Ends the bar line so that later output starts on a fresh line. */
  endBar(): void {
    if (this.drewBar) {
      this.out.write('\n');
      this.drewBar = false;
    }
  }
}

/** What a model pull reports (the engine's `ModelProgressEvent`, the fields drawn). */
export interface PullEvent {
  modelId: string;
  file: string;
  fileIndex: number;
  fileCount: number;
  source: string;
  receivedBytes: number;
  totalBytes: number | null;
}

/** Seconds as `42s`, `3m05s` or `1h02m`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Model pull progress on stderr: on a terminal, a bar redrawn at most ~10 times a second with the
 * bytes, the total size, the rate and an ETA (a finished file keeps its line); on other streams
 * one line when a file starts (with its size) and one when it is done, so that logs stay readable.
 * Pulls of several files at once are told apart by file. Callers stay silent under `--json` by not
 * creating one.
 */
export class PullProgress {
  private readonly files = new Map<string, { started: number; last: PullEvent; done: boolean }>();
  private lastDraw = 0;
  private drawn: { key: string; done: boolean } | null = null;

  constructor(
    private readonly out: ProgressStream,
    private readonly style: Style,
    private readonly now: () => number = Date.now,
  ) {}

  readonly onProgress = (e: PullEvent): void => {
    const key = `${e.modelId}/${e.file}`;
    const t = this.now();
    let f = this.files.get(key);
    if (f === undefined) {
      f = { started: t, last: e, done: false };
      this.files.set(key, f);
      if (!this.out.isTTY)
        this.out.write(
          `Fetching ${this.label(e)}${e.totalBytes !== null ? ` ${formatBytes(e.totalBytes)}` : ''}\n`,
        );
    }
    f.last = e;
    const done = e.totalBytes !== null && e.receivedBytes >= e.totalBytes;
    if (!this.out.isTTY) {
      if (done && !f.done) this.out.write(this.finished(e, f.started, t));
      f.done = done;
      return;
    }
    const switched = this.drawn !== null && this.drawn.key !== key;
    if (!done && !switched && t - this.lastDraw < 100) return;
    // A finished file keeps its line; an unfinished one is overwritten by the file that moved.
    if (switched && this.drawn?.done) this.out.write('\n');
    this.lastDraw = t;
    this.out.write(`\r\u001b[2K${this.label(e)} ${this.style.cyan(this.bar(e, f.started, t))}`);
    this.drawn = { key, done };
    f.done = done;
  };

  private label(e: PullEvent): string {
    return `${e.modelId} ${e.file} (${e.fileIndex + 1}/${e.fileCount}, ${e.source})`;
  }

  private finished(e: PullEvent, started: number, t: number): string {
    return `Fetched ${e.modelId} ${e.file} ${formatBytes(e.receivedBytes)} in ${((t - started) / 1000).toFixed(1)} s\n`;
  }

  private bar(e: PullEvent, started: number, t: number): string {
    const seconds = Math.max(0.001, (t - started) / 1000);
    const rate = e.receivedBytes / seconds;
    const speed = `${formatBytes(Math.round(rate))}/s`;
    if (!e.totalBytes) return `${formatBytes(e.receivedBytes)} ${speed}`;
    const width = Math.max(10, Math.min(30, (this.out.columns ?? 80) - 80));
    const ratio = Math.min(1, e.receivedBytes / e.totalBytes);
    const filled = Math.round(ratio * width);
    const left = e.totalBytes - e.receivedBytes;
    const eta = left <= 0 ? 'done' : rate > 0 ? `ETA ${formatDuration(left / rate)}` : 'ETA --';
    return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${formatBytes(e.receivedBytes)}/${formatBytes(e.totalBytes)} ${speed} ${eta}`;
  }

  /** Ends the progress output: the bar's line, and (logs) files whose size was never known. */
  end(): void {
    if (this.drawn !== null) this.out.write('\n');
    this.drawn = null;
    if (!this.out.isTTY) {
      const t = this.now();
      for (const f of this.files.values())
        if (!f.done) {
          this.out.write(this.finished(f.last, f.started, t));
          f.done = true;
        }
    }
  }
}
