// `vesta bench compare` as a CI gate runs it: a spawned process against a real server holding runs
// with known scores; its exit codes (0 pass, 1 regression, 2 no verdict) and what it prints.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestServer } from '../../server/test/helpers/bench-app.js';
import type { TestServer } from '../../server/test/helpers/bench-app.js';
import { grid, seedRun } from '../../server/test/helpers/bench-seed.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');

let server: TestServer;
let key: string;
let baseUrl: string;

function vesta(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, VESTA_API_KEY: key, VESTA_BASE_URL: baseUrl, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build)`);
  const port = await freePort();
  server = await startTestServer({ listen: true, port });
  baseUrl = `http://127.0.0.1:${port}`;
  const user = await server.key();
  key = user.key;
  await server.deps.bench.models.upsert({ id: 'gate-model', name: 'Gate model', description: 'under test' });
  const scores = (shift: number) => (p: number, s: number) => ({
    aesthetic_quality: 0.5 + shift + 0.06 * Math.cos(p) + Math.sin(5 * p + s) / 60,
    imaging_quality: 0.6 + 0.05 * Math.sin(p) + Math.cos(3 * p + s) / 60,
  });
  const run = (id: string, shift: number, version?: string) =>
    seedRun(server, {
      id,
      userId: user.userId,
      model: 'gate-model',
      clips: grid('overall_consistency', 10, 3, scores(shift), version ? { version } : {}),
    });
  await run('bench_gate_base', 0);
  await run('bench_gate_worse', -0.03);
  await run('bench_gate_same', 0.0005);
  await run('bench_gate_v9', 0, '9');
});

afterAll(async () => {
  await server?.stop();
});

describe('vesta bench compare: the regression gate', () => {
  it('exits 1 on a regression beyond DELTA and prints the dimension, its delta and interval', async () => {
    const r = await vesta([
      'bench',
      'compare',
      'bench_gate_base',
      'bench_gate_worse',
      '--fail-on-regression',
      '0.01',
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Regression: aesthetic_quality worse than the baseline by more than 0\.01/);
    expect(r.stdout).toMatch(/aesthetic_quality: delta -0\.0300, 95% interval \[-0\.\d{4}, -0\.\d{4}\]/);
  });

  it('exits 0 when nothing is worse by more than DELTA, and 0 without a gate', async () => {
    const within = await vesta([
      'bench',
      'compare',
      'bench_gate_base',
      'bench_gate_worse',
      '--fail-on-regression',
      '0.1',
    ]);
    expect(within.code, within.stderr).toBe(0);
    const same = await vesta([
      'bench',
      'compare',
      'bench_gate_base',
      'bench_gate_same',
      '--fail-on-regression',
      '0',
      '--json',
    ]);
    expect(same.code, same.stderr).toBe(0);
    expect((JSON.parse(same.stdout) as { gate: { verdict: string } }).gate.verdict).toBe('pass');
    const plain = await vesta(['bench', 'compare', 'bench_gate_base', 'bench_gate_worse']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('paired');
    // Without colours (not a terminal) the real differences are still marked, and said to be.
    expect(plain.stdout).toMatch(/aesthetic_quality +0\.\d{4} +0\.\d{4} +-0\.0300 \* /);
    expect(plain.stdout).toContain('* a real difference: its 95 % interval leaves out 0');
  });

  it('gates only the named dimensions', async () => {
    const r = await vesta([
      'bench',
      'compare',
      'bench_gate_base',
      'bench_gate_worse',
      '--fail-on-regression',
      '0.01',
      '--dimensions',
      'imaging_quality',
    ]);
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([
    [['bench_gate_base', 'bench_gate_v9', '--fail-on-regression', '0'], 'not comparable'],
    [['bench_gate_base', 'bench_gate_worse', '--fail-on-regression', '-1'], 'must be a number ≥ 0'],
    [['bench_gate_base', 'bench_gate_worse', '--fail-on-regression', 'x'], 'must be a number ≥ 0'],
    [['bench_gate_base', 'bench_gate_worse', '--fail-on-regression', '0x10'], 'must be a number ≥ 0'],
    [['bench_gate_base', 'bench_gate_worse', '--fail-on-regression', '0b1'], 'must be a number ≥ 0'],
    [
      ['bench_gate_base', 'bench_gate_worse', 'bench_gate_same', '--fail-on-regression', '0'],
      'exactly one candidate',
    ],
    [['bench_gate_base', 'bench_gone', '--fail-on-regression', '0'], 'not_found'],
    [['bench_gate_base', 'bench_gate_base'], 'twice'],
  ])('exits 2 without a verdict: %j', async (args, says) => {
    const r = await vesta(['bench', 'compare', ...args]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(`${r.stdout}${r.stderr}`.toLowerCase()).toContain(says.toLowerCase());
  });

  it('sets and reads a model baseline', async () => {
    const set = await vesta(['bench', 'baseline', 'set', 'gate-model', 'bench_gate_base', '--json']);
    expect(set.code, set.stderr).toBe(0);
    const got = await vesta(['bench', 'baseline', 'get', 'gate-model', '--json']);
    expect((JSON.parse(got.stdout) as { run_id: string }).run_id).toBe('bench_gate_base');
    expect((await vesta(['bench', 'baseline', 'clear', 'gate-model'])).code).toBe(0);
  });

  it('shows a finished run with its scores and intervals', async () => {
    const r = await vesta(['bench', 'scorecard', 'bench_gate_base']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/aesthetic_quality\s+0\.\d{4}\s+\[0\.\d{4}, 0\.\d{4}\]\s+30\s+10/);
  });
});
