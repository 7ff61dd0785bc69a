/** `addModel` (`vesta admin add-model`): operators add or rename models on the host's data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addModel } from '../src/admin.js';
import { openDatabase } from '../src/db/connection.js';
import { Repositories } from '../src/repositories/index.js';
import { ModelService } from '../src/services/model.service.js';
import { dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-admin-models-'));
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await dropTestDatabase(dataDir);
});

describe('addModel', () => {
  let target: Awaited<ReturnType<typeof testDatabaseTarget>>;
  beforeAll(async () => {
    target = await testDatabaseTarget(dataDir);
  });

  it('adds a model, updates it on a second call, and keeps the seeded demo model', async () => {
    expect(
      await addModel(target, { id: 'acme/t2v-1.5', name: ' Acme T2V 1.5 ', description: 'In-house.' }),
    ).toEqual({ id: 'acme/t2v-1.5', name: 'Acme T2V 1.5', description: 'In-house.', created: true });
    expect(await addModel(target, { id: 'acme/t2v-1.5', name: 'Acme T2V 1.5.1' })).toMatchObject({
      created: false,
      description: '',
    });
    const opened = await openDatabase(target);
    try {
      const models = await new ModelService({ repos: new Repositories(opened.db) }).list('nobody');
      expect(models.map((m) => [m.id, m.name])).toEqual([
        ['acme/t2v-1.5', 'Acme T2V 1.5.1'],
        ['vesta-demo', 'Vesta demo generator (procedural, not a real model)'],
      ]);
    } finally {
      await opened.close();
    }
  });

  it('refuses a bad id, name or description with a RangeError naming the problem', async () => {
    await expect(addModel(target, { id: 'has space', name: 'x' })).rejects.toThrow(/model id/);
    await expect(addModel(target, { id: '-leading', name: 'x' })).rejects.toThrow(/model id/);
    await expect(addModel(target, { id: 'ok', name: '  ' })).rejects.toThrow(/model name/);
    await expect(addModel(target, { id: 'ok', name: 'tab\there' })).rejects.toThrow(/model name/);
    await expect(addModel(target, { id: 'ok', name: 'x', description: 'd'.repeat(2001) })).rejects.toThrow(
      /description/,
    );
  });
});
