/**
 * Worker thread: runs dimension methods (pure pixel code) on frames the main thread decodes.
 * Frames arrive transferred or shared (no copy); one frame object is pushed to every run of its
 * output, so methods must treat frame data as read-only. A run that throws is recorded as failed
 * and skipped from then on; the other runs continue. Nothing here detaches an ArrayBuffer (see
 * `FrameBuffers`).
 */
import { parentPort } from 'node:worker_threads';
import { ENGINE_ERROR_CODES } from '../contract.js';
import type { EngineErrorCode } from '../contract.js';
import type { Frame } from '../contract.js';
import type { AsyncMethodRun, FrameBand, MethodRun } from '../method-contract.js';
import { JobInference } from '../inference/job.js';
import { SessionCache } from '../inference/sessions.js';
import type { InferenceSettings } from '../inference/settings.js';
import type { MethodCatalog } from './catalog-types.js';
import type { FromWorker, RunResult, RunSpec, ToWorker } from './protocol.js';

interface LiveRun {
  spec: RunSpec;
  run: MethodRun | AsyncMethodRun | null;
  error: { code: EngineErrorCode; detail: string } | null;
  elapsedMs: number;
}

interface Job {
  runs: LiveRun[];
  byOutput: Map<number, LiveRun[]>;
  inference: JobInference | null;
  /** Per output: the frame being assembled from its bands, for runs that need frames whole. */
  assembling: Map<number, Uint8Array>;
  /** Acknowledge every `ackEvery`-th frames message; `acked`: the last seq acknowledged. */
  ackEvery: number;
  acked: number;
}

/** A run that takes this band as a band (a repeated frame is pushed whole, `repeat` times). */
function takesBands(live: LiveRun, repeat: number): boolean {
  return repeat === 1 && typeof (live.run as MethodRun | null)?.pushBand === 'function';
}

function errorInfo(err: unknown): { code: EngineErrorCode; detail: string } {
  const code = (err as { code?: unknown } | null)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  if (typeof code === 'string' && (ENGINE_ERROR_CODES as readonly string[]).includes(code)) {
    return { code: code as EngineErrorCode, detail };
  }
  return { code: 'decode_failed', detail: `method failed: ${detail}` };
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('evaluation-worker must run in a worker thread');
  const catalogs = new Map<string, Promise<MethodCatalog>>();
  const jobs = new Map<number, Promise<Job | null>>();
  const post = (m: FromWorker): void => port.postMessage(m);
  // One session cache per inference settings: sessions are shared by every job of this worker.
  const sessionCaches = new Map<string, SessionCache>();
  const sessionsFor = (settings: InferenceSettings): SessionCache => {
    const key = JSON.stringify(settings);
    let c = sessionCaches.get(key);
    if (!c) {
      c = new SessionCache(settings);
      sessionCaches.set(key, c);
    }
    return c;
  };

  const loadCatalog = (url: string): Promise<MethodCatalog> => {
    let c = catalogs.get(url);
    if (!c) {
      c = import(url) as Promise<MethodCatalog>;
      catalogs.set(url, c);
    }
    return c;
  };

  const startJob = async (msg: Extract<ToWorker, { type: 'start' }>): Promise<Job | null> => {
    let catalog: MethodCatalog;
    try {
      catalog = await loadCatalog(msg.catalog);
    } catch (err) {
      post({
        type: 'job_failed',
        job: msg.job,
        detail: `cannot load method catalog: ${(err as Error).message}`,
      });
      return null;
    }
    const inference =
      msg.inference && msg.context.models
        ? new JobInference(sessionsFor(msg.inference), msg.context.models, msg.inference.batchSize)
        : null;
    const job: Job = {
      runs: [],
      byOutput: new Map(),
      inference,
      assembling: new Map(),
      ackEvery: Math.max(1, Math.floor(msg.ackEvery ?? 1)),
      acked: 0,
    };
    const context = inference ? { ...msg.context, inference } : msg.context;
    for (const spec of msg.runs) {
      const live: LiveRun = { spec, run: null, error: null, elapsedMs: 0 };
      const t0 = performance.now();
      try {
        const method = catalog.getMethod(spec.dimension, spec.method);
        if (!method)
          throw Object.assign(new Error(`method ${spec.method} of ${spec.dimension} is not in this build`), {
            code: 'method_unavailable',
          });
        live.run = method.start(context);
      } catch (err) {
        live.error = errorInfo(err);
      }
      live.elapsedMs += performance.now() - t0;
      job.runs.push(live);
      const list = job.byOutput.get(spec.output) ?? [];
      list.push(live);
      job.byOutput.set(spec.output, list);
    }
    return job;
  };

  // Messages for one job are handled strictly in order: each waits for the previous one.
  const chains = new Map<number, Promise<void>>();
  const enqueue = (jobId: number, task: () => Promise<void> | void): void => {
    const prev = chains.get(jobId) ?? Promise.resolve();
    const next = prev.then(task).catch((err: unknown) => {
      post({ type: 'job_failed', job: jobId, detail: (err as Error).message });
    });
    chains.set(jobId, next);
  };

  port.on('message', (msg: ToWorker) => {
    switch (msg.type) {
      case 'start':
        jobs.set(msg.job, startJob(msg));
        enqueue(msg.job, async () => {
          await jobs.get(msg.job);
        });
        return;
      case 'frames':
        enqueue(msg.job, async () => {
          const job = await jobs.get(msg.job);
          if (job) {
            for (const { output, frame, repeat, band } of msg.frames) {
              const lives = (job.byOutput.get(output) ?? []).filter((l) => l.run && !l.error);
              let whole: Frame | null = frame;
              if (band) {
                whole = null;
                const piece: FrameBand = { ...frame, ...band };
                if (lives.some((l) => !takesBands(l, repeat))) {
                  // Runs that need the frame whole get it once its last band is in.
                  const rowBytes = frame.width * frame.channels;
                  let buf = job.assembling.get(output);
                  if (band.y === 0 || !buf) {
                    buf = new Uint8Array(rowBytes * frame.height);
                    job.assembling.set(output, buf);
                  }
                  buf.set(frame.data, band.y * rowBytes);
                  if (band.last) {
                    job.assembling.delete(output);
                    whole = { ...frame, data: buf };
                  }
                }
                for (const live of lives) {
                  if (!takesBands(live, repeat)) continue;
                  const t0 = performance.now();
                  try {
                    (live.run as MethodRun).pushBand!(piece);
                  } catch (err) {
                    live.error = errorInfo(err);
                  }
                  live.elapsedMs += performance.now() - t0;
                }
              }
              if (!whole) continue;
              const full = whole;
              for (const live of lives) {
                if (!live.run || live.error || (band && takesBands(live, repeat))) continue;
                const t0 = performance.now();
                try {
                  for (let r = 0; r < repeat; r++) {
                    const pending = live.run.push(full);
                    if (pending) await pending;
                  }
                } catch (err) {
                  live.error = errorInfo(err);
                }
                live.elapsedMs += performance.now() - t0;
              }
            }
          }
          if (!job || msg.seq - job.acked >= job.ackEvery) {
            if (job) job.acked = msg.seq;
            post({ type: 'ack', job: msg.job, seq: msg.seq });
          }
        });
        return;
      case 'finish':
        enqueue(msg.job, async () => {
          const job = await jobs.get(msg.job);
          jobs.delete(msg.job);
          chains.delete(msg.job);
          if (!job) return;
          const results: RunResult[] = [];
          for (const live of job.runs) {
            if (live.error || !live.run) {
              const e = live.error ?? { code: 'decode_failed' as const, detail: 'method did not start' };
              results.push({ run: live.spec.run, ok: false, ...e, elapsedMs: live.elapsedMs });
              continue;
            }
            const t0 = performance.now();
            try {
              const outcome = await live.run.finish();
              results.push({
                run: live.spec.run,
                ok: true,
                outcome,
                elapsedMs: live.elapsedMs + performance.now() - t0,
              });
            } catch (err) {
              results.push({
                run: live.spec.run,
                ok: false,
                ...errorInfo(err),
                elapsedMs: live.elapsedMs + performance.now() - t0,
              });
            }
          }
          job.inference?.close();
          post({ type: 'result', job: msg.job, results });
        });
        return;
      case 'cancel':
        void jobs.get(msg.job)?.then((job) => job?.inference?.close());
        jobs.delete(msg.job);
        chains.delete(msg.job);
        return;
    }
  });
}

main();
