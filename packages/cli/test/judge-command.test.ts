// `vesta judge …` as a user runs it: a spawned process against a real server holding two Bench
// runs with known scores. A campaign made from them, a judge added by user name, that judge's
// blind pairs and votes from the command line, the owner's status, ratings and agreement, and the
// export in CSV and JSON Lines; bad input answered in words with a non-zero exit.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestServer } from '../../server/test/helpers/bench-app.js';
import type { TestServer } from '../../server/test/helpers/bench-app.js';
import { grid, seedRun } from '../../server/test/helpers/bench-seed.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');
const PROMPTS = 4;

let server: TestServer;
let owner: { key: string; userId: string };
let judge: { key: string; userId: string };
let baseUrl: string;
const judgeName = `cli-judge-${process.pid}`;

function vesta(
  args: string[],
  key = owner.key,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

async function json<T>(args: string[], key = owner.key): Promise<T> {
  const r = await vesta([...args, '--json'], key);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build)`);
  const port = await freePort();
  server = await startTestServer({ listen: true, port });
  baseUrl = `http://127.0.0.1:${port}`;
  owner = await server.key();
  judge = await server.key(judgeName);
  await server.deps.bench.models.upsert({
    id: 'cli-secret-model',
    name: 'Secret',
    description: 'under test',
  });
  for (const [id, shift] of [
    ['bench_cli_judge_a', 0],
    ['bench_cli_judge_b', 0.1],
  ] as const)
    await seedRun(server, {
      id,
      userId: owner.userId,
      model: 'cli-secret-model',
      clips: grid('overall_consistency', PROMPTS, 1, (p) => ({ aesthetic_quality: 0.5 + shift + 0.01 * p })),
    });
});

afterAll(async () => {
  await server?.stop();
});

describe('vesta judge', () => {
  let id = '';

  it('create: a campaign from two Bench runs, printed with its progress', async () => {
    const r = await vesta([
      'judge',
      'create',
      '--name',
      'cli campaign',
      '--bench-runs',
      'bench_cli_judge_a,bench_cli_judge_b',
      '--votes-per-pair',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Created\./);
    expect(r.stdout).toMatch(new RegExp(`0 votes · 0/${PROMPTS} pairs complete`));
    id = /id\s+(\S+)/.exec(r.stdout)![1]!;
    expect(id).not.toBe('');
  });

  it('refuses a campaign of one run in words, exit code non-zero', async () => {
    const r = await vesta(['judge', 'create', '--name', 'one', '--bench-runs', 'bench_cli_judge_a']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/validation_failed|two or more/i);
  });

  it('add-judge by user name; the judge votes on every pair from the command line, blind', async () => {
    const added = await vesta(['judge', 'add-judge', id, '--user', judgeName]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Added judge-1 \(active\)/);
    for (let n = 0; n < PROMPTS; n++) {
      const next = await json<{
        offers: Array<{ offerId: string; prompt: string; left: { contentUrl: string } }>;
      }>(['judge', 'next', id], judge.key);
      const offer = next.offers[0]!;
      // Blind: nothing names the run, the model or a video.
      expect(JSON.stringify(next)).not.toMatch(/bench_cli_judge|cli-secret-model|\/api\/v1\/videos\//);
      const voted = await vesta(
        ['judge', 'vote', id, offer.offerId, n === 0 ? 'both_bad' : n % 4 === 3 ? 'left' : 'right'],
        judge.key,
      );
      expect(voted.code, voted.stderr).toBe(0);
      expect(voted.stdout).toMatch(new RegExp(`your votes: ${n + 1}`));
    }
    const none = await vesta(['judge', 'next', id], judge.key);
    expect(none.stdout).toMatch(/Nothing left for you to judge/);
  });

  it('status: the owner sees the progress and the items by name', async () => {
    const r = await vesta(['judge', 'status', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${PROMPTS} votes · ${PROMPTS}/${PROMPTS} pairs complete`));
    expect(r.stdout).toMatch(/bench_cli_judge_a/);
  });

  it('ratings: says from how many of the votes they come (both_bad does not enter them)', async () => {
    const r = await vesta(['judge', 'ratings', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `ratings from ${PROMPTS - 1} of ${PROMPTS} votes (both_bad and skip do not enter them)`,
    );
  });

  it('export: CSV and JSON Lines, one line per vote, to stdout and to a file', async () => {
    const csv = await vesta(['judge', 'export', id]);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.trim().split(/\r?\n/)).toHaveLength(1 + PROMPTS);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vesta-judge-')), 'votes.jsonl');
    const written = await vesta(['judge', 'export', id, '--format', 'jsonl', '-o', file]);
    expect(written.code, written.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(PROMPTS);
    expect(lines.map((l) => (JSON.parse(l) as { answer: string }).answer).sort()).toEqual(
      [
        'both_bad',
        ...Array<string>(PROMPTS / 4).fill('left'),
        ...Array<string>((3 * PROMPTS) / 4 - 1).fill('right'),
      ].sort(),
    );
    const bad = await vesta(['judge', 'export', id, '--format', 'xml']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--format must be csv or jsonl/);
  });
});
