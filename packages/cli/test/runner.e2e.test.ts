// `vesta runner start` as a user runs it: spawned processes against the real server (short leases),
// with the built-in DEMO generator or a script the test writes; `vesta bench …` drives the runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoClip } from '@vesta/engine';
import { startTestServer, type TestServer } from '../../sdk/test/support/server.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let key: string;
let tmp: string;
let clip: string;
const children = new Set<ChildProcess>();

const env = (): Record<string, string | undefined> => ({
  PATH: process.env.PATH,
  VESTA_API_KEY: key,
  VESTA_BASE_URL: server.baseUrl,
});

function vesta(args: string[]): Promise<Done> {
  const child = spawn(process.execPath, [bin, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function json<T>(args: string[]): Promise<T> {
  const r = await vesta([...args, '--json']);
  if (r.code !== 0) throw new Error(`vesta ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

interface RunnerEventLine {
  type: string;
  [key: string]: unknown;
}

/** A `vesta runner start --json` process and its parsed event lines. */
class RunnerProcess {
  readonly child: ChildProcess;
  readonly events: RunnerEventLine[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  constructor(args: string[]) {
    this.child = spawn(process.execPath, [bin, 'runner', 'start', '--json', '--claim-wait', '1', ...args], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(this.child);
    let buf = '';
    this.child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.events.push(JSON.parse(line) as RunnerEventLine);
      }
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        children.delete(this.child);
        resolve(code);
      }),
    );
  }
  async until(pred: (e: RunnerEventLine) => boolean, ms = 30_000): Promise<RunnerEventLine> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.events.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline)
        throw new Error(
          `no matching runner event within ${ms} ms: ${JSON.stringify(this.events)} ${this.stderr}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.child.kill(signal);
    return this.exited;
  }
}

interface Run {
  id: string;
  status: string;
  progress: { tasks_total: number; tasks_done: number; tasks_failed: number };
}
interface Video {
  state: string;
  attempts: number;
  runner_id: string | null;
  error: { code: string; detail: string } | null;
  scores: Array<{ dimension: string; value: number }>;
}

async function createRun(model: string, dimensions: string, prompts = 1): Promise<Run> {
  return json<Run>([
    'bench',
    'create',
    '--name',
    `${model} run`,
    '--dimensions',
    dimensions,
    '--model-id',
    model,
    '--samples-per-prompt',
    '1',
    '--prompts-per-dimension',
    String(prompts),
  ]);
}

async function finished(id: string, ms = 60_000): Promise<Run> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await json<Run>(['bench', 'get', id]);
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const videos = async (id: string): Promise<Video[]> =>
  (await json<{ items: Video[] }>(['bench', 'videos', id, '--all'])).items;

/** Writes an executable shell script into the temporary directory. */
function script(name: string, body: string): string {
  const file = path.join(tmp, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Whether `pid` runs (a zombie, left unreaped by a container's init, counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build)`);
  server = await startTestServer({ VESTA_RUNNER_LEASE_SECONDS: '2', VESTA_RUNNER_MAX_ATTEMPTS: '2' });
  key = await server.newKey();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-cli-runner-'));
  clip = (await generateDemoClip({ prompt: 'a test clip', seed: 1, outPath: path.join(tmp, 'clip.mp4') }))
    .path;
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await server?.stop();
});

describe('vesta runner start', () => {
  it('--demo serves a two-dimension run to completion; the CSV matches the per-clip scores; delete removes it', async () => {
    const runner = new RunnerProcess(['--demo', '--name', 'demo-runner']);
    const registered = await runner.until((e) => e.type === 'registered');
    expect(registered).toMatchObject({ name: 'demo-runner', models: ['vesta-demo'] });
    const run = await createRun('vesta-demo', 'subject_consistency,dynamic_degree', 2);
    expect(run.status).toBe('queued');
    const done = await finished(run.id);
    expect(done.status).toBe('completed');
    expect(done.progress.tasks_done).toBe(done.progress.tasks_total);

    const clips = await videos(run.id);
    expect(clips.every((v) => v.state === 'done' && v.runner_id === registered.runnerId)).toBe(true);
    const csv = await vesta(['bench', 'csv', run.id]);
    const [header, ...lines] = csv.stdout.trim().split(/\r?\n/);
    expect(header).toBe('dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts');
    const rows = lines.map((l) => l.split(','));
    for (const dimension of ['subject_consistency', 'dynamic_degree']) {
      const values = clips.flatMap((v) =>
        v.scores.filter((s) => s.dimension === dimension).map((s) => s.value),
      );
      const row = rows.find((r) => r[0] === dimension)!;
      expect(Number(row[4])).toBe(values.length);
      expect(Number(row[2])).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 5);
    }
    const logs = await json<{ items: Array<{ source: string; message: string }> }>([
      'bench',
      'logs',
      run.id,
      '--all',
    ]);
    expect(logs.items.some((l) => l.source === 'runner' && l.message.includes('demo clip'))).toBe(true);

    expect(await runner.stop('SIGTERM')).toBe(0);
    expect(runner.events.at(-1)).toMatchObject({ type: 'stopped' });

    expect((await vesta(['bench', 'delete', run.id, '--json'])).code).toBe(0);
    const gone = await vesta(['bench', 'get', run.id, '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('--command gets placeholders and VESTA_* variables, and its output lines reach the run log', async () => {
    const seen = path.join(tmp, 'seen.txt');
    const gen = script(
      'gen.sh',
      `[ "$2" = "$VESTA_PROMPT" ] || { echo "prompt placeholder differs" >&2; exit 9; }
echo "generating '$VESTA_PROMPT' seed=$VESTA_SEED sample=$VESTA_SAMPLE_INDEX"
echo "$VESTA_TASK_ID $VESTA_RUN_ID $VESTA_AUXILIARY \${VESTA_API_KEY:-no-key}" >> ${seen}
cp ${clip} "$1"`,
    );
    const runner = new RunnerProcess(['--model-id', 'cmd-model', '--command', `${gen} {output} {prompt}`]);
    await runner.until((e) => e.type === 'registered');
    const run = await createRun('cmd-model', 'dynamic_degree', 2);
    const done = await finished(run.id);
    expect(done.status).toBe('completed');
    const lines = readFileSync(seen, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) {
      expect(l).toContain(run.id);
      expect(l).toMatch(/\{.*\}/);
      expect(l.endsWith('no-key')).toBe(true);
    }
    const logs = await json<{ items: Array<{ source: string; message: string }> }>([
      'bench',
      'logs',
      run.id,
      '--all',
    ]);
    expect(
      logs.items.some((l) => l.source === 'runner' && /generating '.+' seed=\d+ sample=0/.test(l.message)),
    ).toBe(true);
    expect(await runner.stop('SIGINT')).toBe(130);
  });

  it('a runner killed mid-task loses its lease; the task is re-queued and a second runner completes the run', async () => {
    const pidFile = path.join(tmp, 'slow.pid');
    const slow = script(
      'slow.sh',
      `echo $$ > ${pidFile}\necho started\nsleep 30\ncp ${clip} "$VESTA_OUTPUT"`,
    );
    // `exec`: the script replaces the shell, so its pid is the command's process group.
    const first = new RunnerProcess(['--model-id', 'kill-model', '--command', `exec ${slow}`]);
    await first.until((e) => e.type === 'registered');
    const run = await createRun('kill-model', 'dynamic_degree');
    await first.until((e) => e.type === 'log' && e.message === 'started');
    first.child.kill('SIGKILL');
    await first.exited;
    const orphan = Number(readFileSync(pidFile, 'utf8'));
    process.kill(-orphan, 'SIGKILL');

    const fast = script('fast.sh', `cp ${clip} "$VESTA_OUTPUT"`);
    const second = new RunnerProcess(['--model-id', 'kill-model', '--command', fast]);
    const claimed = await second.until((e) => e.type === 'claimed');
    expect(claimed.attempt).toBe(2);
    const done = await finished(run.id);
    expect(done.status).toBe('completed');
    const [task] = await videos(run.id);
    expect(task!.attempts).toBe(2);
    expect(await second.stop()).toBe(0);
  });

  it('a cancel during generation reaches the runner through its heartbeat and stops the command', async () => {
    const pidFile = path.join(tmp, 'cancel.pid');
    const slow = script(
      'cancel.sh',
      `echo $$ > ${pidFile}\necho started\nsleep 30\ncp ${clip} "$VESTA_OUTPUT"`,
    );
    const runner = new RunnerProcess(['--model-id', 'cancel-model', '--command', slow]);
    await runner.until((e) => e.type === 'registered');
    const run = await createRun('cancel-model', 'dynamic_degree');
    await runner.until((e) => e.type === 'log' && e.message === 'started');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    expect((await json<Run>(['bench', 'cancel', run.id])).status).toBe('cancelled');
    await runner.until((e) => e.type === 'cancelled', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(false);
    const [task] = await videos(run.id);
    expect(task!.state).toBe('cancelled');
    expect(await runner.stop()).toBe(0);
  });

  it('SIGTERM lets an in-flight command use its grace period, then hands the task back and exits 0', async () => {
    const pidFile = path.join(tmp, 'term.pid');
    const slow = script(
      'term.sh',
      `echo $$ > ${pidFile}\necho started\nsleep 30\ncp ${clip} "$VESTA_OUTPUT"`,
    );
    const runner = new RunnerProcess([
      '--model-id',
      'term-model',
      '--command',
      `exec ${slow}`,
      '--grace',
      '1',
    ]);
    await runner.until((e) => e.type === 'registered');
    const run = await createRun('term-model', 'dynamic_degree');
    await runner.until((e) => e.type === 'log' && e.message === 'started');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await runner.stop('SIGTERM')).toBe(0);
    expect(runner.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['stopping', 'handed_back', 'stopped']),
    );
    expect(alive(pid)).toBe(false);
    const [task] = await videos(run.id);
    expect(task).toMatchObject({ state: 'pending', attempts: 1 });
    expect(task!.error!.detail).toContain('handed back');
    expect((await json<Run>(['bench', 'cancel', run.id])).status).toBe('cancelled');
  });

  it('fails attempts of a command that fails, hangs, writes no file or writes a non-video, with clear reasons', async () => {
    const cases = [
      {
        model: 'exit-model',
        command: 'echo boom >&2; exit 3',
        reason: /exited with code 3; last stderr: boom/,
      },
      { model: 'hang-model', command: 'sleep 30', reason: /did not finish within 1 s/ },
      { model: 'nofile-model', command: 'echo done', reason: /wrote no file/ },
      { model: 'text-model', command: 'echo "not a video" > "$VESTA_OUTPUT"', reason: /is not a video/ },
    ];
    const runners = cases.map(
      (c) => new RunnerProcess(['--model-id', c.model, '--command', c.command, '--timeout', '1']),
    );
    await Promise.all(runners.map((r) => r.until((e) => e.type === 'registered')));
    const runs = await Promise.all(cases.map((c) => createRun(c.model, 'dynamic_degree')));
    for (let i = 0; i < cases.length; i++) {
      const done = await finished(runs[i]!.id);
      expect(done.status).toBe('failed');
      const failed = runners[i]!.events.filter((e) => e.type === 'failed');
      expect(failed).toHaveLength(2);
      expect(String(failed[0]!.error)).toMatch(cases[i]!.reason);
      const [task] = await videos(runs[i]!.id);
      expect(task).toMatchObject({ state: 'failed', attempts: 2 });
      expect(task!.error!.detail).toMatch(cases[i]!.reason);
    }
    expect(await Promise.all(runners.map((r) => r.stop()))).toEqual([0, 0, 0, 0]);
  });

  it('--retries runs a failed command again within the same claim', async () => {
    const counter = path.join(tmp, 'flaky.count');
    const flaky = script(
      'flaky.sh',
      `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}
[ "$n" -ge 1 ] || { echo "first try fails" >&2; exit 1; }
cp ${clip} "$VESTA_OUTPUT"`,
    );
    const runner = new RunnerProcess(['--model-id', 'flaky-model', '--command', flaky, '--retries', '1']);
    await runner.until((e) => e.type === 'registered');
    const run = await createRun('flaky-model', 'dynamic_degree');
    expect((await finished(run.id)).status).toBe('completed');
    const [task] = await videos(run.id);
    expect(task!.attempts).toBe(1);
    expect(
      runner.events.some((e) => e.type === 'log' && /running it again \(1 of 1\)/.test(String(e.message))),
    ).toBe(true);
    expect(await runner.stop()).toBe(0);
  });

  it('rejects bad usage and unknown ids with stable codes', async () => {
    const neither = await vesta(['runner', 'start', '--model-id', 'm', '--json']);
    expect(neither.code).toBe(2);
    expect(JSON.parse(neither.stderr)).toMatchObject({ error: { code: 'usage' } });
    const both = await vesta(['runner', 'start', '--demo', '--command', 'true', '--json']);
    expect(both.code).toBe(2);
    const demoOther = await vesta(['runner', 'start', '--demo', '--model-id', 'my-model', '--json']);
    expect(demoOther.code).toBe(2);
    expect(JSON.parse(demoOther.stderr).error.detail).toContain('vesta-demo');
    const unknownDimension = await vesta([
      'bench',
      'create',
      '-n',
      'x',
      '-d',
      'no_such_dimension',
      '-m',
      'vesta-demo',
      '--json',
    ]);
    expect(unknownDimension.code).toBe(1);
    expect(JSON.parse(unknownDimension.stderr)).toMatchObject({
      error: { code: 'validation_failed', status: 400 },
    });
    const unknownModel = await vesta([
      'bench',
      'create',
      '-n',
      'x',
      '-d',
      'dynamic_degree',
      '-m',
      'no-such-model',
      '--json',
    ]);
    expect(unknownModel.code).toBe(1);
    expect(JSON.parse(unknownModel.stderr).error.detail).toContain('no-such-model');
  });
});
