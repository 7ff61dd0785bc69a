/**
 * One worker's onnxruntime sessions: one per model file, shared by every job and dimension in the
 * worker, created on first use and kept up to `maxSessions` (least recently used sessions not held
 * by a running job are released beyond that).
 */
import type * as ort from 'onnxruntime-node';
import { loadOrt } from './runtime.js';
import { EngineError } from '../contract.js';
import type { InferenceSettings } from './settings.js';

interface Entry {
  session: Promise<ort.InferenceSession>;
  holders: number;
  lastUsed: number;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private clock = 0;
  /** Text embeddings by `<model file>|<text>`, shared by the worker's jobs (prompts and label sets repeat). */
  private readonly texts = new Map<string, Promise<Float32Array>>();
  static readonly MAX_TEXTS = 4096;

  text(key: string): Promise<Float32Array> | undefined {
    return this.texts.get(key);
  }

  rememberText(key: string, value: Promise<Float32Array>): void {
    if (this.texts.size >= SessionCache.MAX_TEXTS) this.texts.clear();
    this.texts.set(key, value);
    // A failed embedding is not kept: the next job tries again.
    value.catch(() => this.texts.delete(key));
  }

  constructor(private readonly settings: InferenceSettings) {}

  private options(cuda: boolean): ort.InferenceSession.SessionOptions {
    const providers: ort.InferenceSession.ExecutionProviderConfig[] = cuda ? ['cuda', 'cpu'] : ['cpu'];
    return {
      executionProviders: providers,
      graphOptimizationLevel: 'all',
      ...(this.settings.intraOpThreads > 0 ? { intraOpNumThreads: this.settings.intraOpThreads } : {}),
      interOpNumThreads: 1,
    };
  }

  /** Which provider the sessions run on (`auto` settles on the first session created). */
  provider: 'cpu' | 'cuda' | null = null;

  private async create(path: string): Promise<ort.InferenceSession> {
    const p = this.settings.provider;
    if (p === 'cpu' || (p === 'auto' && this.provider === 'cpu')) {
      this.provider = 'cpu';
      return (await loadOrt()).InferenceSession.create(path, this.options(false));
    }
    const runtime = await loadOrt();
    try {
      const s = await runtime.InferenceSession.create(path, this.options(true));
      this.provider = 'cuda';
      return s;
    } catch (err) {
      if (p === 'cuda') throw err;
      this.provider = 'cpu';
      return runtime.InferenceSession.create(path, this.options(false));
    }
  }

  /** The session for a model file; `release` must be called once the caller is done with it. */
  async acquire(path: string): Promise<{ session: ort.InferenceSession; release: () => void }> {
    let entry = this.entries.get(path);
    if (!entry) {
      const session = this.create(path).catch((err: unknown) => {
        this.entries.delete(path);
        throw new EngineError('model_unavailable', `cannot load model ${path}: ${(err as Error).message}`, {
          cause: err,
        });
      });
      entry = { session, holders: 0, lastUsed: 0 };
      this.entries.set(path, entry);
    }
    entry.holders++;
    entry.lastUsed = ++this.clock;
    const held = entry;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held.holders--;
      this.evict();
    };
    try {
      return { session: await held.session, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Paths of the sessions loaded now. */
  loaded(): string[] {
    return [...this.entries.keys()];
  }

  private evict(): void {
    while (this.entries.size > this.settings.maxSessions) {
      let victim: [string, Entry] | null = null;
      for (const e of this.entries)
        if (e[1].holders === 0 && (!victim || e[1].lastUsed < victim[1].lastUsed)) victim = e;
      if (!victim) return;
      this.entries.delete(victim[0]);
      void victim[1].session.then((s) => s.release()).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.texts.clear();
    await Promise.all(all.map((e) => e.session.then((s) => s.release()).catch(() => undefined)));
  }
}
