// `vesta runner list|get|rm`, `vesta dimensions prompts` and `vesta admin add-model`: the spawned
// executable against a real server, `--json` output parsed, exit codes checked.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vesta } from '@vesta/sdk';
import { startTestServer, type TestServer } from '../../sdk/test/support/server.js';

const bin = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/bin.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let key: string;

function vesta(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: {
      PATH: process.env.PATH,
      VESTA_API_KEY: key,
      VESTA_BASE_URL: server.baseUrl,
      NO_COLOR: '1',
      ...env,
    },
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
  server = await startTestServer();
  key = await server.newKey();
});
afterAll(async () => {
  await server?.stop();
});

describe('vesta runner list|get|rm', () => {
  it("lists, shows and deregisters the caller's runners", async () => {
    expect(JSON.parse((await vesta(['runner', 'list', '--json'])).stdout)).toEqual({ items: [] });
    const sdk = new Vesta({ apiKey: key, baseUrl: server.baseUrl });
    const runner = await sdk.runners.register({ name: 'cli-gpu', models: ['cli-model'] });

    const list = await vesta(['runner', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ items: [runner] });
    const human = await vesta(['runner', 'list']);
    expect(human.stdout).toContain(runner.id);
    expect(human.stdout).toContain('cli-model');

    const got = await vesta(['runner', 'get', runner.id, '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: runner.id, name: 'cli-gpu', online: true });

    const rm = await vesta(['runner', 'rm', runner.id, '--json']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse(rm.stdout)).toEqual({ id: runner.id, deregistered: true });
    const gone = await vesta(['runner', 'get', runner.id, '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
  });
});

describe('vesta dimensions prompts', () => {
  it("prints a dimension's prompt suite; an unknown dimension is not_found", async () => {
    const res = await vesta(['dimensions', 'prompts', 'color', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const body = JSON.parse(res.stdout) as {
      suiteVersion: string;
      clipGroup: string;
      prompts: Array<{ id: string; text: string; auxiliary: Record<string, string> }>;
    };
    expect(body.clipGroup).toBe('color');
    expect(body.suiteVersion).toMatch(/^vesta-prompts-/);
    expect(body.prompts.every((p) => p.auxiliary.color !== undefined)).toBe(true);
    const human = await vesta(['dimensions', 'prompts', 'color']);
    expect(human.stdout).toContain(body.prompts[0]!.text);
    expect(human.stdout).toContain(`color=${body.prompts[0]!.auxiliary.color!}`);
    const unknown = await vesta(['dimensions', 'prompts', 'sharpness', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('vesta admin add-model', () => {
  it('adds a model on the host that the API then lists; a bad id exits 2', async () => {
    const added = await vesta([
      'admin',
      'add-model',
      '--id',
      'cli-added',
      '--name',
      'CLI added',
      '--description',
      'Added by an operator.',
      '--data-dir',
      server.dataDir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe('cli-added\n');
    expect(added.stderr).toContain('added model cli-added');
    const models = JSON.parse((await vesta(['bench', 'models', '--json'])).stdout) as {
      items: Array<{ id: string; name: string; description: string }>;
    };
    expect(models.items.find((m) => m.id === 'cli-added')).toMatchObject({
      name: 'CLI added',
      description: 'Added by an operator.',
    });
    const bad = await vesta([
      'admin',
      'add-model',
      '--id',
      'bad id',
      '--name',
      'x',
      '--data-dir',
      server.dataDir,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/model id/);
  });
});
