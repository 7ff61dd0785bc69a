// The TypeScript SDK against a server whose blob store is S3 (VESTA_BLOB_STORE=s3, a real
// S3-compatible server with SigV4 checked): score.upload, rank.upload and a Bench run through
// bench.runWithPipeline PUT their clips to the presigned bucket URL (size and type signed) and
// never through the API.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoClip } from '@vesta/engine';
import { Vesta } from '../src/index.js';
import { externalS3, startTestS3, type TestS3 } from '../../server/test/helpers/s3.js';
import { corpusClip, startTestServer, type TestServer } from './support/server.js';

let s3: TestS3;
let server: TestServer;
let vesta: Vesta;
let tmp: string;

beforeAll(async () => {
  s3 = await startTestS3();
  server = await startTestServer(s3.env);
  vesta = new Vesta({ apiKey: await server.newKey(), baseUrl: server.baseUrl });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-sdk-s3-'));
});
afterAll(async () => {
  await server?.stop();
  await s3?.close();
});

/** The PUTs the bucket received for a video's object. */
const putsOf = (videoId: string) =>
  s3.requests.filter((r) => r.method === 'PUT' && r.key === `videos/${videoId}`);

describe('uploads with an S3 blob store', () => {
  it('score.upload sends the clip straight to the bucket and waits for its scores', async () => {
    const file = corpusClip('modelscope-t2v__toad-karate.mp4');
    const result = await vesta.score.upload(file, { prompt: 'a toad doing karate', wait: true });
    expect(result.state).toBe('scored');
    expect(result.video?.sizeBytes).toBe(statSync(file).size);
    expect(putsOf(result.videoId)).toHaveLength(1);
    expect(await s3.keys()).toContain(`videos/${result.videoId}`);
  });

  it('rank.upload of a Blob goes the same way', async () => {
    const bytes = readFileSync(corpusClip('modelscope-t2v__blue-tiger-butterflies.mp4'));
    const result = await vesta.rank.upload(new Blob([bytes], { type: 'video/mp4' }), {
      fileName: 'tiger.mp4',
      prompt: 'a blue tiger among butterflies',
      wait: true,
    });
    expect(result.state).toBe('scored');
    expect(putsOf(result.videoId)).toHaveLength(1);
  });

  it('a Bench run with an in-process generator completes; every clip went to the bucket', async () => {
    const run = await vesta.bench.runWithPipeline(
      async ({ prompt, seed, auxiliary, signal }) =>
        (
          await generateDemoClip({
            prompt,
            seed,
            auxiliary,
            outPath: path.join(tmp, `${seed}-${Date.now()}.mp4`),
            signal,
          })
        ).path,
      {
        dimensions: ['dynamic_degree'],
        runName: 'S3 run',
        modelId: 'vesta-demo',
        samplesPerPrompt: 1,
        promptsPerDimension: 2,
        pollIntervalMs: 200,
      },
    );
    expect(run.status).toBe('completed');
    const videos = [];
    for await (const v of vesta.bench.allVideos(run.id, { limit: 100 })) videos.push(v);
    expect(videos).toHaveLength(run.progress.tasks_total);
    for (const v of videos) expect(putsOf(v.video_id ?? 'no video')).toHaveLength(1);
    const csv = await vesta.bench.csv(run.id);
    expect(csv).toMatch(/^dimension,/);
    expect(csv).toContain('dynamic_degree');
  });

  it('a runner keeps a clip it cannot upload while the bucket is down and sends it once it is back', async () => {
    if (externalS3) return; // an external endpoint cannot be stopped from here
    let generated = 0;
    let outage: Promise<void> | undefined;
    const run = await vesta.bench.runWithPipeline(
      async ({ prompt, seed, auxiliary, signal }) => {
        generated++;
        const clip = await generateDemoClip({
          prompt,
          seed,
          auxiliary,
          outPath: path.join(tmp, `outage-${seed}-${Date.now()}.mp4`),
          signal,
        });
        // The bucket goes away just before the first clip's upload, for 4 s.
        if (!outage) {
          await s3.stopServer();
          outage = new Promise((r) => setTimeout(r, 4000)).then(() => s3.startServer());
        }
        return clip.path;
      },
      {
        dimensions: ['dynamic_degree'],
        runName: 'S3 outage',
        modelId: 'vesta-demo',
        samplesPerPrompt: 1,
        promptsPerDimension: 2,
        pollIntervalMs: 200,
      },
    );
    await outage;
    expect(run.status).toBe('completed');
    expect(run.progress.tasks_failed).toBe(0);
    // Each clip was generated once: the failed uploads cost no attempt and no regeneration.
    expect(generated).toBe(run.progress.tasks_total);
    const videos = [];
    for await (const v of vesta.bench.allVideos(run.id, { limit: 100 })) videos.push(v);
    expect(videos.map((v) => v.state)).toEqual(videos.map(() => 'done'));
  });
});
