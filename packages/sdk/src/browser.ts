/** Browser entry of @vesta/sdk: File/Blob uploads with progress; the key is always passed in. */
import { VestaClient, type VestaOptions } from './client.js';
import { browserPlatform } from './browser/platform.js';

export * from './exports.js';

/**
 * The Vesta client for browsers. Pass `apiKey` explicitly (browsers have no environment); prefer a
 * short-lived or narrowly used key, since anything in a page can be read by its users.
 * @example
 * import { Vesta } from '@vesta/sdk';
 * const vesta = new Vesta({ apiKey, baseUrl: 'https://vesta.example.com' });
 * await vesta.score.upload(fileInput.files[0], { prompt: 'a cat surfing', wait: true });
 */
export class Vesta extends VestaClient {
  constructor(options: VestaOptions = {}) {
    super(options, browserPlatform());
  }
}
