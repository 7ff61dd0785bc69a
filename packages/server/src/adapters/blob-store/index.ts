/** Builds the configured BlobStore adapter (`VESTA_BLOB_STORE`: `local`, the default, or `s3`). */
import path from 'node:path';
import type { ServerConfig } from '../../config.js';
import type { BlobStore, UploadTicketSigner } from '../../ports/blob-store.js';
import { LocalDirBlobStore } from './local-dir.js';

export async function createBlobStore(
  config: Pick<ServerConfig, 'dataDir' | 'blobStore' | 'databaseUrl'>,
  signer: UploadTicketSigner,
): Promise<BlobStore & { close?(): void }> {
  const { blobStore } = config;
  if (blobStore.kind === 's3') {
    // Loaded only here: the embedded default never loads the AWS SDK (~80 ms at start).
    const { removeStaleTempCopies, S3BlobStore } = await import('./s3.js');
    // Temporary copies a killed worker left behind (a day old: none can be in use).
    await removeStaleTempCopies();
    return new S3BlobStore({
      bucket: blobStore.bucket,
      region: blobStore.region,
      endpoint: blobStore.endpoint,
      forcePathStyle: blobStore.forcePathStyle,
      keyPrefix: blobStore.keyPrefix,
    });
  }
  const local = new LocalDirBlobStore(path.join(config.dataDir, 'blobs'), { signer });
  // On PostgreSQL other api processes may share the directory and be writing: keep what was
  // written to within the hour (a live PUT sends more often: the HTTP request timeout is minutes).
  await local.init(config.databaseUrl === null ? {} : { keepRecentMs: 3600_000 });
  return local;
}
