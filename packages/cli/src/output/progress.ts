/** Upload progress bar and scoring-state lines, drawn on stderr. */
import type { UploadProgressEvent } from '@vesta/sdk';
import type { Style } from './style.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): boolean;
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
