/**
 * An S3-compatible server for tests. By default an `s3rver` (an S3 protocol server from npm, with
 * real SigV4 checks, presigned URLs included) is started on a random 127.0.0.1 port with its files
 * in a temporary directory. With VESTA_TEST_S3_ENDPOINT set, the same tests run against that
 * endpoint instead (MinIO, AWS S3, …): VESTA_TEST_S3_BUCKET (created when missing),
 * VESTA_TEST_S3_REGION, and credentials from the standard AWS chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { IncomingMessage, ServerResponse } from 'node:http';
import S3rver from 's3rver';
import { verifyingSigV4 } from './sigv4-check.js';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Environment for `loadConfig` (VESTA_BLOB_STORE=s3 and the VESTA_S3_* settings). */
  env: Record<string, string>;
  /** A client on the same server (to look at the bucket from outside the service). */
  client: S3Client;
  /**
   * Requests the s3rver answered (method, object key under this test's prefix, Range header), and
   * how each answer ended: sent whole, or cut off (the requester went away before its end).
   */
  requests: Array<{
    method: string;
    key: string;
    range: string | undefined;
    ended: Promise<'sent' | 'cut off'>;
  }>;
  /** Keys currently in the bucket under this test's prefix. */
  keys(): Promise<string[]>;
  /** Stops the server (s3rver only; for outage tests) and starts it again on the same port. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

/** True when the tests use an external endpoint (VESTA_TEST_S3_ENDPOINT). */
export const externalS3 = (process.env.VESTA_TEST_S3_ENDPOINT ?? '') !== '';

export async function startTestS3(): Promise<TestS3> {
  const region = process.env.VESTA_TEST_S3_REGION ?? 'us-east-1';
  let endpoint: string;
  let bucket: string;
  let credentials: { accessKeyId: string; secretAccessKey: string };
  let server: S3rver | null = null;
  let dir: string | null = null;
  let port = 0;
  const requests: TestS3['requests'] = [];

  if (externalS3) {
    endpoint = process.env.VESTA_TEST_S3_ENDPOINT ?? '';
    bucket = process.env.VESTA_TEST_S3_BUCKET ?? 'vesta-test';
    credentials = {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
    };
  } else {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-s3rver-'));
    bucket = 'vesta-test';
    // s3rver's fixed credentials; the service reads them through the standard AWS chain.
    credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    server = await runS3rver(0, dir, requests);
    port =
      server.httpServer?.address() instanceof Object
        ? (server.httpServer.address() as { port: number }).port
        : 0;
    endpoint = `http://127.0.0.1:${port}`;
    process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  }
  const client = new S3Client({
    region,
    endpoint,
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
  // Each test run its own prefix, so that runs sharing an external bucket do not meet.
  const keyPrefix = `t-${randomUUID().slice(0, 8)}/`;

  const keys = async (): Promise<string[]> => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key.slice(keyPrefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  };

  return {
    endpoint,
    bucket,
    region,
    credentials,
    env: {
      VESTA_BLOB_STORE: 's3',
      VESTA_S3_ENDPOINT: endpoint,
      VESTA_S3_BUCKET: bucket,
      VESTA_S3_REGION: region,
      VESTA_S3_FORCE_PATH_STYLE: 'true',
      VESTA_S3_KEY_PREFIX: keyPrefix,
    },
    client,
    requests,
    keys,
    async stopServer() {
      if (!server) throw new Error('an external S3 endpoint cannot be stopped by the tests');
      await stop(server);
    },
    async startServer() {
      if (!dir) throw new Error('an external S3 endpoint cannot be started by the tests');
      server = await runS3rver(port, dir, requests);
    },
    async close() {
      const left = await keys().catch(() => []);
      if (externalS3 && left.length > 0)
        await client
          .send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: left.map((k) => ({ Key: keyPrefix + k })) },
            }),
          )
          .catch(() => undefined);
      client.destroy();
      if (server) await stop(server).catch(() => undefined);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** s3rver on 127.0.0.1 with V4 signatures verified in front of it (see sigv4-check.ts). */
async function runS3rver(port: number, directory: string, log: TestS3['requests']): Promise<S3rver> {
  const server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
  await server.run();
  const http = server.httpServer;
  if (!http) throw new Error('s3rver did not start');
  const [handler] = http.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  if (!handler) throw new Error('s3rver has no request handler');
  http.removeAllListeners('request');
  const verified = verifyingSigV4(handler, { S3RVER: 'S3RVER' });
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
      .split('/')
      .slice(3)
      .join('/');
    const range = req.headers.range;
    const ended = new Promise<'sent' | 'cut off'>((resolve) =>
      res.once('close', () => resolve(res.writableFinished ? 'sent' : 'cut off')),
    );
    log.push({ method: req.method ?? 'GET', key, range, ended });
    verified(req, res);
  });
  return server;
}

/** Closes s3rver at once: its keep-alive connections too (a plain close waits for them). */
async function stop(server: S3rver): Promise<void> {
  const http = server.httpServer;
  if (!http?.listening) return;
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeAllConnections();
  await closed;
}
