// The committed SDK types are exactly what openapi-typescript makes from openapi/openapi.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiError, KNOWN_ERROR_CODES, apiErrorFor } from '../src/index.js';

const root = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

describe('generated types', () => {
  it('regenerating from openapi/openapi.json produces no diff (run `npm run generate:sdk` to update)', () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'vesta-gen-')), 'openapi.generated.ts');
    execFileSync(
      process.execPath,
      [
        path.join(root, 'node_modules/openapi-typescript/bin/cli.js'),
        'openapi/openapi.json',
        '--default-non-nullable',
        'false',
        '-o',
        out,
      ],
      {
        cwd: root,
        stdio: 'pipe',
      },
    );
    const committed = readFileSync(
      path.join(root, 'packages/sdk/src/generated/openapi.generated.ts'),
      'utf8',
    );
    expect(readFileSync(out, 'utf8')).toBe(committed);
  });
});

describe('error classes', () => {
  it("has one class per code of the document's ErrorBody enum, and no other", () => {
    const doc = JSON.parse(readFileSync(path.join(root, 'openapi/openapi.json'), 'utf8')) as {
      components: { schemas: { ErrorBody: { properties: { code: { enum: string[] } } } } };
    };
    const documented = doc.components.schemas.ErrorBody.properties.code.enum;
    expect([...KNOWN_ERROR_CODES].sort()).toEqual([...documented].sort());
    for (const code of documented) {
      const err = apiErrorFor({
        status: 400,
        code,
        detail: 'x',
        requestId: undefined,
        headers: new Headers(),
        method: 'GET',
        url: 'http://x',
      });
      expect(err.constructor).not.toBe(ApiError);
      expect(err.code).toBe(code);
    }
  });
});
