/** `vesta eval` on real files with the built engine (run `npx tsc -b packages/engine` first). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gifBytes } from '@vesta/engine/testing';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerEvalCommand, runEval } from '../src/commands/eval.js';
import type { EvalHost, EvalJson } from '../src/commands/eval.js';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
const gif = join(corpus, 'lavie__panda-selfie.gif');
const mp4 = join(corpus, 'show-1__toad-karate.mp4');
let dir = '';

function host(): EvalHost & { out: string; err: string } {
  const h = {
    out: '',
    err: '',
    exitCode: 0,
    io: {
      stdout: { write: (s: string) => (h.out += s) },
      stderr: { write: (s: string) => (h.err += s) },
    },
  };
  return h;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-eval-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vesta eval', () => {
  it('prints the stable JSON document with scores for each file', async () => {
    const h = host();
    const code = await runEval(
      [mp4, gif],
      { dimensions: 'temporal_flickering,dynamic_degree', json: true, threads: '1' },
      h,
    );
    expect(h.err).toBe('');
    expect(code).toBe(0);
    const doc = JSON.parse(h.out) as EvalJson;
    expect(doc.version).toBe(1);
    expect(doc.dimensions).toEqual(['temporal_flickering', 'dynamic_degree']);
    expect(doc.results.map((r) => [r.file, r.ok])).toEqual([
      [mp4, true],
      [gif, true],
    ]);
    for (const r of doc.results) {
      if (!r.ok) continue;
      expect(r.scores.map((s) => s.dimension)).toEqual(['temporal_flickering', 'dynamic_degree']);
      for (const s of r.scores) {
        expect(Number.isFinite(s.value)).toBe(true);
        expect(typeof s.method).toBe('string');
        expect(s.frames.count).toBeGreaterThan(0);
      }
      expect(r.probe.frameCount).toBeGreaterThan(0);
    }
  });

  it('prints a table per clip in human mode', async () => {
    const h = host();
    const code = await runEval([gif], { dimensions: 'temporal_flickering', threads: '1' }, h);
    expect(code).toBe(0);
    expect(h.out).toContain('lavie__panda-selfie.gif');
    expect(h.out).toMatch(/dimension\s+value\s+method/);
    expect(h.out).toMatch(/temporal_flickering\s+0\.\d{4}\s+\S+/);
  });

  it("says when a clip's frame rate is assumed (a GIF without frame delays)", async () => {
    const file = join(dir, 'no-delays.gif');
    const frames = Array.from({ length: 8 }, (_, i) => ({
      pixels: Uint8Array.from({ length: 32 * 32 }, (_, k) => (((k % 32) + 3 * i) >> 2) % 2),
      delayCs: null,
    }));
    await writeFile(
      file,
      gifBytes({
        width: 32,
        height: 32,
        palette: [
          [0, 0, 0],
          [255, 255, 255],
        ],
        frames,
      }),
    );
    const h = host();
    expect(await runEval([file, gif], { dimensions: 'temporal_flickering', threads: '1' }, h)).toBe(0);
    const [assumed, stated] = h.out.split('\n').filter((l) => l.includes(' fps'));
    expect(assumed).toContain('10 fps (assumed: the clip states no usable rate), 8 frames, 0.80 s');
    expect(stated).not.toContain('assumed');
  });

  it('reports a bad file as a JSON error on stderr with exit code 1, and still scores the others', async () => {
    const bad = join(dir, 'bad.mp4');
    await writeFile(bad, '');
    const h = host();
    const code = await runEval(
      [bad, gif],
      { dimensions: 'temporal_flickering', json: true, threads: '1' },
      h,
    );
    expect(code).toBe(1);
    expect(JSON.parse(h.err.trim())).toEqual({
      error: { code: 'empty_file', detail: expect.any(String), file: bad },
    });
    const doc = JSON.parse(h.out) as EvalJson;
    expect(doc.results.map((r) => r.ok)).toEqual([false, true]);
  });

  it('rejects unknown dimensions as a usage error (exit code 2)', async () => {
    const h = host();
    const code = await runEval([gif], { dimensions: 'sharpness' }, h);
    expect(code).toBe(2);
    expect(JSON.parse(h.err.trim())).toMatchObject({ error: { code: 'unknown_dimension' } });
    expect(h.out).toBe('');
  });

  it('registers on a commander program and sets the host exit code', async () => {
    const h = host();
    const program = new Command('vesta').exitOverride();
    registerEvalCommand(program, h);
    await program.parseAsync(['eval', gif, '--dimensions', 'all', '--json', '--threads', '1'], {
      from: 'user',
    });
    expect(h.exitCode).toBe(0);
    const doc = JSON.parse(h.out) as EvalJson;
    expect(doc.dimensions).toHaveLength(16);
    const r = doc.results[0]!;
    expect(r.ok).toBe(true);
    // With `all`, dimensions that need models or prompt info are listed as failures, not errors.
    if (r.ok) expect(r.scores.length + r.failures.length).toBe(16);
  });
});
