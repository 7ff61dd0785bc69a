/**
 * Budgets of one clip: decoded work (width × height × frames) is refused at probe time with its own
 * code, and an evaluation past its wall-clock budget stops (FFmpeg killed, workers dropped) with
 * `clip_budget_exceeded`; the same engine then scores the next clip.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, EngineError } from '../src/index.js';
import { clipBudgetMs, DEFAULT_LIMITS } from '../src/decode/limits.js';
import { hostileGif } from '../src/testing/hostile-gif.js';
import { CORPUS_DIR } from './helpers/corpus.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SMALL = path.join(CORPUS_DIR, 'zeroscope-v2__burning-lamborghini-rainbow.mp4');

describe('decoded-work limit', () => {
  it('refuses the 5.5 KB GIF of 240 frames at 7680x4320 at probe time, naming the limit and how to raise it', async () => {
    const file = path.join(dir, 'hostile.gif');
    const bytes = hostileGif();
    expect(bytes.length).toBeLessThan(6000);
    writeFileSync(file, bytes);
    const engine = createEngine({ threads: 1 });
    try {
      const started = Date.now();
      const err = await engine.probe(file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe('decoded_work_too_large');
      expect((err as EngineError).message).toMatch(/240 frames of 7680x4320/);
      expect((err as EngineError).message).toContain('VESTA_ENGINE_MAX_DECODED_PIXELS');
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await engine.close();
    }
  });

  it('lets 1080p for 60 s and 4K for 10 s (30 fps) through by default', () => {
    expect(1920 * 1080 * 1800).toBeLessThan(DEFAULT_LIMITS.maxDecodedPixels);
    expect(3840 * 2160 * 300).toBeLessThan(DEFAULT_LIMITS.maxDecodedPixels);
    expect(7680 * 4320 * 240).toBeGreaterThan(DEFAULT_LIMITS.maxDecodedPixels);
  });
});

describe('wall-clock budget', () => {
  it('is a base plus a share per second of clip', () => {
    expect(clipBudgetMs(10, DEFAULT_LIMITS)).toBe((60 + 10 * 10) * 1000);
    expect(clipBudgetMs(Number.NaN, DEFAULT_LIMITS)).toBe(60_000);
  });

  it('stops a clip that crawls past its budget with clip_budget_exceeded, then scores the next clip', async () => {
    // A smaller hostile GIF (1920x1080, 240 frames) under a 1 s budget: it passes the work limit
    // and is stopped by the clock.
    const file = path.join(dir, 'crawl.gif');
    writeFileSync(file, hostileGif({ width: 1920, height: 1080, frames: 240 }));
    const engine = createEngine({
      threads: 1,
      limits: { clipBudgetBaseSeconds: 1, clipBudgetSecondsPerClipSecond: 0.001 },
    });
    try {
      const dimensions = ['temporal_flickering', 'motion_smoothness', 'subject_consistency'] as const;
      const started = Date.now();
      const err = await engine.evaluate(file, { dimensions: [...dimensions] }).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe('clip_budget_exceeded');
      expect((err as EngineError).message).toContain('VESTA_CLIP_BUDGET_BASE_SECONDS');
      expect(elapsed).toBeLessThan(15_000);
      // Nothing is left running: the next clip scores (with the default budget).
      const next = createEngine({ threads: 1 });
      try {
        const result = await next.evaluate(SMALL, { dimensions: ['temporal_flickering'] });
        expect(result.scores).toHaveLength(1);
      } finally {
        await next.close();
      }
    } finally {
      await engine.close();
    }
  });

  it("a caller's own abort stays `aborted`, not a budget failure", async () => {
    const engine = createEngine({ threads: 1 });
    try {
      const ac = new AbortController();
      const p = engine.evaluate(SMALL, { dimensions: ['temporal_flickering'], signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      const err = await p.catch((e: unknown) => e);
      if (err instanceof EngineError) expect(err.code).toBe('aborted');
    } finally {
      await engine.close();
    }
  });
});
