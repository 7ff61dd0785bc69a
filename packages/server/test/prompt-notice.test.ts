/**
 * Rankings and scores that silently ignore the prompt (issue #24 item 6): on a server without the
 * models of the dimensions that read the prompt (this test server is offline, with no model
 * pulled), a Rank leaderboard and a scored Score clip carry `promptNotice`, naming those dimensions
 * and the command that fetches their model; with a prompt-reading dimension scored there is none.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptNotice } from '../src/services/prompt-notice.js';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer, Json } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const PROMPT = 'Toad practicing karate.';
const NOTICE = {
  code: 'prompt_not_read',
  dimensions: ['temporal_style', 'overall_consistency'],
  models: ['clip-vit-b32'],
  command: 'vesta models pull clip-vit-b32',
};

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
  return res.json<Json>();
}

async function uploadScored(kind: 'score' | 'rank', file: string): Promise<Json> {
  const runId = (await call('GET', `/api/v1/${kind}`)).runId as string;
  const ticket = await call('POST', `/api/v1/${kind}/${runId}/videos/upload-url`, {
    fileName: file,
    contentType: 'video/mp4',
    prompt: PROMPT,
  });
  const u = new URL(ticket.uploadUrl as string);
  await server.app.inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': 'video/mp4' },
    payload: readFileSync(clip(file)),
  });
  await call('POST', `/api/v1/${kind}/${runId}/videos/confirm-upload`, { videoId: ticket.videoId });
  return waitFor(
    () => call('GET', `/api/v1/${kind}`),
    (s) => (s.videos as Json[]).every((v) => v.state === 'scored' || v.state === 'failed'),
    120_000,
  );
}

describe('prompt notice without the prompt-reading models', () => {
  it('a Rank leaderboard says it does not read the prompt, and which command fixes it', async () => {
    const session = await uploadScored('rank', 'zeroscope-v2__toad-karate.mp4');
    const board = await call('GET', `/api/v1/rank/${session.runId as string}/ranked`);
    expect(board.entries[0].rank).toBe(1);
    expect(board.promptNotice).toMatchObject(NOTICE);
    expect(board.promptNotice.detail).toBe(
      'this ranking does not read the prompt: temporal_style and overall_consistency need the model clip-vit-b32 — `vesta models pull clip-vit-b32`',
    );
  }, 180_000);

  it('a scored Score clip says its scores do not read the prompt; a clip not yet scored says nothing', async () => {
    const session = await uploadScored('score', 'show-1__panda-selfie.mp4');
    const [video] = session.videos as Json[];
    expect(video!.state).toBe('scored');
    expect(video!.promptNotice).toMatchObject(NOTICE);
    expect(video!.promptNotice.detail).toMatch(/^these scores do not read the prompt: /);
    const runId = session.runId as string;
    const pending = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'x.mp4',
      contentType: 'video/mp4',
      prompt: PROMPT,
    });
    const listed = ((await call('GET', '/api/v1/score')).videos as Json[]).find(
      (v) => v.videoId === pending.videoId,
    );
    expect(listed!.promptNotice).toBeNull();
  }, 180_000);

  it('is null once a dimension that reads the prompt is among the scores, or without a prompt', () => {
    const dims = server.deps.engine.dimensions();
    expect(promptNotice(dims, 'rank', PROMPT, ['subject_consistency'])).not.toBeNull();
    expect(promptNotice(dims, 'rank', PROMPT, ['subject_consistency', 'overall_consistency'])).toBeNull();
    expect(promptNotice(dims, 'rank', null, ['subject_consistency'])).toBeNull();
    expect(promptNotice(dims, 'score', PROMPT, [])).toBeNull();
  });
});
