/** Node platform: environment variables, file paths streamed from disk. */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Platform } from '../core/platform.js';
import { UploadSourceError } from '../core/errors.js';
import { putWithNodeHttp } from './put-http.js';
import {
  guessContentType,
  prepareInMemorySource,
  type PreparedUpload,
  type UploadFileOptions,
} from '../uploads/source.js';

/** Read size of the file stream: large chunks keep per-chunk overhead low on big clips. */
const chunkBytes = 1 << 20;

/** Checks that `path` is a readable regular file and describes it; the bytes are streamed later. */
export async function preparePath(path: string, opts: UploadFileOptions): Promise<PreparedUpload> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UploadSourceError(`Not a regular file: ${path}`);
    size = info.size;
    const handle = await open(path, 'r');
    await handle.close();
  } catch (err) {
    if (err instanceof UploadSourceError) throw err;
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT') throw new UploadSourceError(`File not found: ${path}`, err);
    if (code === 'EACCES' || code === 'EPERM')
      throw new UploadSourceError(`File is not readable (permission denied): ${path}`, err);
    throw new UploadSourceError(
      `Cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
  const fileName = opts.fileName ?? basename(path);
  return {
    fileName,
    contentType: opts.contentType ?? guessContentType(fileName),
    size,
    replayable: true,
    open: () => createReadStream(path, { highWaterMark: chunkBytes }) as AsyncIterable<Uint8Array>,
  };
}

export function nodePlatform(env: Record<string, string | undefined> = process.env): Platform {
  return {
    readEnv: (name) => env[name],
    hasEnv: true,
    prepareUpload: async (input, opts) =>
      typeof input === 'string' ? preparePath(input, opts) : prepareInMemorySource(input, opts),
    put: putWithNodeHttp,
    setContentLength: true,
  };
}
