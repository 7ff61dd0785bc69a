/**
 * Runs the `sh` examples of docs/ai-agents.md, in order, with real curl against a real listening
 * server (real engine, worker on): a corpus clip is scored end to end, a Bench run is created,
 * polled, read (CSV, videos, logs), cancelled and deleted.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDocsDir } from '../src/http/docs/docs-site.route.js';
import { freePort, startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';

const CLIP = fileURLToPath(new URL('../../../../shared/corpus/show-1__snail-macro.mp4', import.meta.url));
const PROMPT = 'Snail slowly creeping along super macro close-up, high resolution, best quality.';

/** The fenced ```sh blocks of a Markdown page, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

function run(
  script: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let server: TestServer;
let work: string;

beforeAll(async () => {
  server = await startTestServer({ listen: true, worker: true, port: await freePort() });
  work = mkdtempSync(path.join(os.tmpdir(), 'vesta-agent-recipe-'));
});
afterAll(async () => {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('docs/ai-agents.md', () => {
  it('has curl examples for every step of the recipe', () => {
    const blocks = shellBlocks(readFileSync(path.join(defaultDocsDir(), 'ai-agents.md'), 'utf8'));
    const all = blocks.join('\n');
    for (const needle of [
      '/llms.txt',
      '/api/v1/dimensions',
      '/api/v1/models',
      'upload-url',
      'confirm-upload',
      '/api/v1/bench"',
      'Idempotency-Key',
      '/csv',
      '/videos',
      '/logs',
      '/cancel',
      '-X DELETE',
    ]) {
      expect(all, needle).toContain(needle);
    }
  });

  it('runs end to end against a real server: a corpus clip is scored, a Bench run is created, read, cancelled, deleted', async () => {
    expect(existsSync(CLIP)).toBe(true);
    const { key, userId } = await server.key('agent');
    await server.deps.bench.models.upsert({
      id: 'agent-model',
      name: 'Agent test model',
      description: 'A model row for the recipe test.',
    });
    const script = shellBlocks(readFileSync(path.join(defaultDocsDir(), 'ai-agents.md'), 'utf8')).join('\n');
    const result = await run(
      script,
      { VESTA_URL: server.url ?? '', VESTA_API_KEY: key, CLIP, PROMPT, BENCH_POLL_TRIES: '1' },
      work,
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.code, output).toBe(0);
    // The key never appears in what the recipe prints.
    expect(output).not.toContain(key);

    // 1-2: index, dimensions, models.
    expect(result.stdout).toContain('# Vesta');
    expect(result.stdout).toMatch(/^subject_consistency\tquality\tdefault method: \w+/m);
    expect(result.stdout).toMatch(/^agent-model\tonline: false$/m);

    // 3a: the clip was scored for real; the recipe printed the scores.
    expect(result.stdout).toMatch(/"state": "scored"/);
    const session = await server.deps.db
      .selectFrom('videos')
      .select(['id', 'state', 'file_name'])
      .where('user_id', '=', userId)
      .execute();
    expect(session).toEqual([
      expect.objectContaining({ state: 'scored', file_name: 'show-1__snail-macro.mp4' }),
    ]);
    const scores = await server.deps.db
      .selectFrom('scores')
      .select(['dimension', 'value', 'method'])
      .where('video_id', '=', session[0]!.id)
      .execute();
    expect(scores.length).toBeGreaterThan(0);
    for (const s of scores) {
      expect(Number.isFinite(s.value)).toBe(true);
      expect(result.stdout).toContain(`"dimension": "${s.dimension}"`);
    }

    // 3b-5: the Bench run.
    const benchId = /^bench run: (bench_\S+)$/m.exec(result.stdout)?.[1];
    expect(benchId).toBeDefined();
    expect(result.stdout).toMatch(/queued: 0\/[1-9]\d* clips done/);
    expect(readFileSync(path.join(work, 'scorecard.csv'), 'utf8')).toBe(
      [
        'dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts',
        'subject_consistency,quality,,,0,,,,0',
        'temporal_flickering,quality,,,0,,,,0',
        'Quality,aggregate,,,0,,,,0',
        'Semantic,aggregate,,,0,,,,0',
        'Total,aggregate,,,0,,,,0',
        '',
      ].join('\r\n'),
    );
    expect(result.stdout).toMatch(/Z server info run created: model agent-model/);
    expect(result.stdout).toContain('status: cancelled');
    expect(result.stdout).toContain('delete: HTTP 204');
    expect(
      await server.deps.db.selectFrom('bench_runs').select('id').where('id', '=', benchId!).execute(),
    ).toEqual([]);
  });
});
