/** What differs between Node and browsers, passed into the client by each entry point. */
import type { PutFn } from '../uploads/put.js';
import type { PreparedUpload, UploadFileOptions, UploadInput } from '../uploads/source.js';

export interface Platform {
  /** Reads an environment variable; browsers have none and return undefined. */
  readEnv(name: string): string | undefined;
  /** Whether the runtime has environment variables at all. */
  hasEnv: boolean;
  /** Normalises an upload source; Node also accepts a file path and checks it can be read. */
  prepareUpload(input: UploadInput, opts: UploadFileOptions): Promise<PreparedUpload>;
  /** Sends the bytes to the upload URL. */
  put: PutFn;
  /** Whether the runtime lets the SDK set Content-Length itself. */
  setContentLength: boolean;
}
