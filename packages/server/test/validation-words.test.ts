/**
 * Validation failures in words (issue 24): each failed rule is one sentence naming the field as the
 * client wrote it and the rule in plain English, never the validator's text ("body/dimensions must
 * not have fewer than 1 items"); the codes stay `validation_failed` and `invalid_field`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;
let scoreRun: string;

beforeAll(async () => {
  server = await startCoreServer();
  key = await server.key();
  scoreRun = (await call('GET', '/api/v1/score')).detail;
});

afterAll(async () => {
  await server?.stop();
});

async function call(
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
): Promise<{ status: number; code: string; detail: string }> {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  const body = res.json<{ code?: string; detail?: string; runId?: string }>();
  return { status: res.statusCode, code: body.code ?? '', detail: body.detail ?? body.runId ?? '' };
}

const upload = { fileName: 'clip.mp4', contentType: 'video/mp4', prompt: 'a cat' };
const bench = { name: 'run', dimensions: ['subject_consistency'], model_id: 'vesta-demo' };

describe('validation failures in words', () => {
  it.each([
    [
      'an empty list',
      'POST',
      '/api/v1/bench',
      { ...bench, dimensions: [] },
      'dimensions must list at least one item (it is empty)',
    ],
    [
      'a text over its limit, with its length',
      'POST',
      'score-upload',
      { ...upload, prompt: 'p'.repeat(2431) },
      'prompt must be at most 2000 characters long (it has 2431)',
    ],
    ['an empty text', 'POST', 'score-upload', { ...upload, prompt: '' }, 'prompt must not be empty'],
    [
      'required fields',
      'POST',
      'score-upload',
      { contentType: 'video/mp4' },
      'fileName and prompt are required',
    ],
    [
      'a wrong type',
      'POST',
      '/api/v1/bench',
      { ...bench, model_id: 5 },
      'model_id must be text (a JSON string)',
    ],
    [
      'a whole number',
      'POST',
      '/api/v1/bench',
      { ...bench, samples_per_prompt: 1.5 },
      'samples_per_prompt must be a whole number',
    ],
    [
      'a number out of range',
      'POST',
      '/api/v1/bench',
      { ...bench, samples_per_prompt: 0 },
      'samples_per_prompt must be at least 1',
    ],
    [
      'a nested field',
      'POST',
      'score-upload',
      { ...upload, auxiliary: { object: '' } },
      'auxiliary.object must not be empty',
    ],
    [
      'control characters',
      'POST',
      '/api/v1/bench',
      { ...bench, name: 'a\nb' },
      'name must not contain control characters (line breaks, tabs, …)',
    ],
    [
      'a list entry',
      'POST',
      '/api/v1/bench',
      { ...bench, dimensions: ['subject_consistency', 7] },
      'dimensions[1] must be text (a JSON string)',
    ],
    [
      'a query parameter',
      'GET',
      '/api/v1/bench?limit=1000',
      undefined,
      'the query parameter limit must be at most 100',
    ],
    ['a body that is not an object', 'POST', 'score-upload', ['x'], 'the body must be a JSON object'],
  ] as const)('%s', async (_what, method, url, payload, detail) => {
    const res = await call(
      method,
      url === 'score-upload' ? `/api/v1/score/${scoreRun}/videos/upload-url` : url,
      payload,
    );
    expect(res.status).toBe(400);
    expect(res.code).toBe('validation_failed');
    expect(res.detail).toBe(detail);
  });

  it('a field the route does not accept stays invalid_field, named as the client wrote it', async () => {
    const res = await call('POST', `/api/v1/score/${scoreRun}/videos/upload-url`, {
      ...upload,
      auxiliary: { mood: 'calm' },
    });
    expect(res.code).toBe('invalid_field');
    expect(res.detail).toBe('the body has a field the route does not accept: auxiliary.mood');
  });

  it('several problems: one sentence each, at most five, then how many more', async () => {
    const res = await call('POST', `/api/v1/score/${scoreRun}/videos/upload-url`, {
      fileName: '',
      contentType: '',
      prompt: '',
      sizeBytes: 0,
      auxiliary: { object: '', color: '', scene: '' },
    });
    expect(res.code).toBe('validation_failed');
    const sentences = res.detail.split('; ');
    expect(sentences.slice(0, 3)).toEqual([
      'fileName must not be empty',
      'contentType must not be empty',
      'prompt must not be empty',
    ]);
    expect(sentences.at(-1)).toMatch(/^and \d+ more problems?$/);
    expect(sentences).toHaveLength(6);
  });
});
