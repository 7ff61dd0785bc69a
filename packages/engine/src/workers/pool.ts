/**
 * A small pool of evaluation worker threads. Each evaluation (a "job") is pinned to the least
 * busy worker; its frames are transferred or shared, never copied, and at most `maxInFlight`
 * frame messages per job wait unacknowledged, so a slow method slows the decoder instead of
 * filling memory. The worker acknowledges every (maxInFlight − 1)-th message, cumulatively.
 * A worker that dies fails its jobs (not the process) and is replaced on next use.
 */
import { Worker } from 'node:worker_threads';
import { EngineError } from '../contract.js';
import type { MethodContext } from '../method-contract.js';
import type { FrameMessage, FromWorker, RunResult, RunSpec, ToWorker } from './protocol.js';
import type { InferenceSettings } from '../inference/settings.js';

export interface WorkerPoolOptions {
  size: number;
  script: URL;
  /**
   * URL of tsx's ESM API, when the worker script is TypeScript source (tests, tsx). `--import tsx`
   * in a worker's execArgv does not hook the worker's own entry on Node 20, so the worker starts
   * from a tiny bootstrap that registers tsx and then imports the script.
   */
  tsxApi?: string;
  maxInFlight?: number;
}

/** Takes back the shared frame buffers a worker is done with (see `FrameBuffers`). */
export interface FrameBufferSink {
  give(buffer: SharedArrayBuffer): void;
}

/** Frame buffers to take back once the worker has acknowledged the messages that carried them. */
export interface FrameRecycling {
  /** Outputs whose every run declares `releasesFrames`. */
  outputs: ReadonlySet<number>;
  sink: FrameBufferSink;
}

interface JobState {
  recycling: FrameRecycling | null;
  /** Shared buffers sent for recycled outputs, by the message that carried them, oldest first. */
  lent: Array<{ seq: number; buffers: SharedArrayBuffer[] }>;
  acked: number;
  sent: number;
  waiters: Array<() => void>;
  resolveResult: ((r: RunResult[]) => void) | null;
  rejectResult: ((e: Error) => void) | null;
  failure: Error | null;
}

class PooledWorker {
  readonly jobs = new Map<number, JobState>();
  private readonly worker: Worker;
  dead = false;
  private closing = false;

  constructor(options: WorkerPoolOptions) {
    this.worker = options.tsxApi
      ? new Worker(
          `import(${JSON.stringify(options.tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(options.script.href)}); })`,
          { eval: true },
        )
      : new Worker(options.script);
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (err) => this.die(err));
    this.worker.on('exit', (code) => this.die(new Error(`worker exited with code ${code}`)));
  }

  private onMessage(m: FromWorker): void {
    const job = this.jobs.get(m.job);
    if (!job) return;
    switch (m.type) {
      case 'ack':
        job.acked = Math.max(job.acked, m.seq);
        // Acks are cumulative: every message up to this one has been pushed to all its runs.
        while (job.lent.length > 0 && job.lent[0]!.seq <= job.acked)
          for (const b of job.lent.shift()!.buffers) job.recycling!.sink.give(b);
        job.waiters.splice(0).forEach((w) => w());
        return;
      case 'result':
        this.jobs.delete(m.job);
        this.refresh();
        job.resolveResult?.(m.results);
        return;
      case 'job_failed':
        this.fail(m.job, job, new EngineError('decode_failed', m.detail));
        return;
    }
  }

  private fail(id: number, job: JobState, err: Error): void {
    job.failure = err;
    this.jobs.delete(id);
    this.refresh();
    job.waiters.splice(0).forEach((w) => w());
    job.rejectResult?.(err);
  }

  private die(err: Error): void {
    if (this.dead) return;
    this.dead = true;
    const failure = this.closing
      ? new EngineError('aborted', 'the engine was closed while this evaluation ran')
      : new EngineError('decode_failed', `evaluation worker stopped: ${err.message}`, { cause: err });
    for (const [id, job] of [...this.jobs]) this.fail(id, job, failure);
  }

  /** Keeps the process alive only while jobs are running. */
  private refresh(): void {
    if (this.jobs.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  post(msg: ToWorker, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(msg, transfer);
  }

  add(id: number, recycling: FrameRecycling | null): JobState {
    const state: JobState = {
      recycling,
      lent: [],
      acked: 0,
      sent: 0,
      waiters: [],
      resolveResult: null,
      rejectResult: null,
      failure: null,
    };
    this.jobs.set(id, state);
    this.refresh();
    return state;
  }

  drop(id: number): void {
    this.jobs.delete(id);
    this.refresh();
  }

  async terminate(): Promise<void> {
    this.closing = true;
    this.die(new Error('terminated'));
    await this.worker.terminate();
  }
}

/** One evaluation's handle on its worker. */
export class WorkerJob {
  private finished = false;
  constructor(
    private readonly worker: PooledWorker,
    private readonly id: number,
    private readonly state: JobState,
    private readonly maxInFlight: number,
  ) {}

  // Read through a call: failures are set from worker events, which flow analysis cannot see.
  private failure(): Error | null {
    return this.state.failure;
  }

  /** Sends one sampled frame (all its outputs); waits while too many are unacknowledged. */
  async send(frames: FrameMessage[], signal?: AbortSignal): Promise<void> {
    if (this.state.failure) throw this.state.failure;
    const seq = ++this.state.sent;
    // Shared buffers are shared, not transferred (nothing is detached on either side).
    const transfer: ArrayBuffer[] = [];
    const lent: SharedArrayBuffer[] = [];
    for (const f of frames) {
      const buffer = f.frame.data.buffer;
      if (!(buffer instanceof SharedArrayBuffer)) transfer.push(buffer);
      else if (this.state.recycling?.outputs.has(f.output)) lent.push(buffer);
    }
    if (lent.length > 0) this.state.lent.push({ seq, buffers: lent });
    this.worker.post({ type: 'frames', job: this.id, seq, frames }, transfer);
    while (this.state.sent - this.state.acked >= this.maxInFlight && !this.failure()) {
      if (signal?.aborted) throw new EngineError('aborted', 'aborted');
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.state.waiters.push(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    if (signal?.aborted) throw new EngineError('aborted', 'aborted');
    const failure = this.failure();
    if (failure) throw failure;
  }

  finish(): Promise<RunResult[]> {
    this.finished = true;
    if (this.state.failure) return Promise.reject(this.state.failure);
    return new Promise<RunResult[]>((resolve, reject) => {
      this.state.resolveResult = resolve;
      this.state.rejectResult = reject;
      this.worker.post({ type: 'finish', job: this.id });
    });
  }

  cancel(): void {
    if (this.finished && !this.state.resolveResult) return;
    this.worker.drop(this.id);
    if (!this.worker.dead) this.worker.post({ type: 'cancel', job: this.id });
  }
}

export class WorkerPool {
  private readonly workers: Array<PooledWorker | null>;
  private nextJob = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!(options.size >= 1)) throw new RangeError('worker pool size must be >= 1');
    this.workers = new Array<PooledWorker | null>(options.size).fill(null);
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Starts a job on the least busy worker (spawning or replacing workers as needed). With
   * `recycling`, the shared buffers of frames of its outputs go to its sink once acknowledged.
   */
  start(
    catalog: string,
    runs: RunSpec[],
    context: MethodContext,
    inference?: InferenceSettings,
    recycling?: FrameRecycling,
  ): WorkerJob {
    if (this.closed) throw new EngineError('aborted', 'the engine is closed');
    let best = -1;
    for (let i = 0; i < this.workers.length; i++) {
      const w = this.workers[i];
      if (!w || w.dead) {
        best = i;
        break;
      }
      if (best < 0 || w.jobs.size < this.workers[best]!.jobs.size) best = i;
    }
    let worker = this.workers[best];
    if (!worker || worker.dead) {
      worker = new PooledWorker(this.options);
      this.workers[best] = worker;
    }
    const id = this.nextJob++;
    const state = worker.add(id, recycling ?? null);
    const maxInFlight = this.options.maxInFlight ?? 3;
    // Acks are cumulative: one per (maxInFlight − 1) messages keeps the decoder flowing (this side
    // waits only with maxInFlight unacknowledged, by which time the worker has acknowledged or is
    // one message away from it) and spares the worker a message, and this thread a wake-up, per frame.
    const ackEvery = Math.max(1, maxInFlight - 1);
    worker.post({
      type: 'start',
      job: id,
      catalog,
      runs,
      context,
      ...(inference ? { inference } : {}),
      ackEvery,
    });
    return new WorkerJob(worker, id, state, maxInFlight);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => (w ? w.terminate() : Promise.resolve())));
    this.workers.fill(null);
  }
}
