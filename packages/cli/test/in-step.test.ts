// REST API, SDK and CLI stay in step: every operation of openapi/openapi.json has an SDK method
// and a CLI command (per the one table in src/operations.ts), and each named one exists.
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { Vesta } from '@vesta/sdk';
import { OPERATIONS } from '../src/operations.js';
import { buildProgram, commandWord } from '../src/program.js';
import { CliContext } from '../src/context.js';

const doc = JSON.parse(readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
const methods = ['get', 'put', 'post', 'delete', 'patch'];
type Op = { operationId?: string; security?: Array<Record<string, unknown>>; tags?: string[] };
/** Operations whose security names only the dashboard's cookie session (or nothing, before sign-in). */
const dashboardOnly = new Set(
  Object.values(doc.paths as Record<string, Record<string, Op>>).flatMap((item) =>
    Object.entries(item)
      .filter(([m, op]) => methods.includes(m) && op.security !== undefined)
      .filter(([, op]) => !op.security!.some((s) => 'ApiKey' in s) && !(op.tags ?? []).includes('Uploads'))
      .map(([, op]) => op.operationId!),
  ),
);
const operationIds = Object.values(doc.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([m]) => methods.includes(m))
    .map(([, op]) => op.operationId),
);

function findCommand(program: Command, words: string[]): Command | undefined {
  let cmd: Command | undefined = program;
  for (const w of words) cmd = cmd?.commands.find((c) => c.name() === w);
  return cmd;
}

describe('API, SDK and CLI in step', () => {
  const vesta = new Vesta({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:1' });
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    interruptSignal: () => new AbortController().signal,
  };
  let program: Command;
  beforeAll(async () => {
    program = await buildProgram(new CliContext(io));
  });

  it('every operation has an operationId', () => {
    expect(operationIds.length).toBeGreaterThan(0);
    expect(operationIds.filter((id) => !id)).toEqual([]);
  });

  it.each(operationIds.map((id) => [id!]))('%s has an SDK method and a CLI command', (id) => {
    const mapping = OPERATIONS[id];
    expect(mapping, `add ${id} to packages/cli/src/operations.ts`).toBeDefined();
    const [ns, method] = mapping!.sdk.split('.') as [string, string];
    const target = (vesta as unknown as Record<string, Record<string, unknown>>)[ns];
    expect(typeof target?.[method], `SDK method ${mapping!.sdk}`).toBe('function');
    if (mapping!.cli === null) {
      // Only an operation that refuses API keys may lack a CLI command (the dashboard's own).
      expect(dashboardOnly.has(id), `${id} accepts an API key, so it needs a CLI command`).toBe(true);
      return;
    }
    const cmd = findCommand(program, mapping!.cli.split(' '));
    expect(cmd, `CLI command vesta ${mapping!.cli}`).toBeDefined();
    expect(cmd!.commands, 'a leaf command').toHaveLength(0);
  });

  it('loads the operator commands beside the client commands', () => {
    for (const name of ['serve', 'admin', 'eval'])
      expect(program.commands.map((c) => c.name())).toContain(name);
  });

  it('finds the command word past global options', () => {
    expect(commandWord(['--base-url', 'http://x', 'score', 'get'])).toBe('score');
    expect(commandWord(['--api-key-env', 'K', '--json'])).toBeUndefined();
    expect(commandWord(['serve', '--port', '1'])).toBe('serve');
  });

  it('the table names no operation the API lacks', () => {
    expect(Object.keys(OPERATIONS).filter((id) => !operationIds.includes(id))).toEqual([]);
  });
});
