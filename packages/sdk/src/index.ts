/** Node entry of @vesta/sdk: reads the API key from the environment and uploads files by path. */
import { VestaClient, type VestaOptions } from './client.js';
import { nodePlatform } from './node/platform.js';

export * from './exports.js';

/**
 * The Vesta client for Node.js.
 * @example
 * import { Vesta } from '@vesta/sdk';
 * const vesta = new Vesta(); // key from VESTA_API_KEY
 * const result = await vesta.score.upload('clip.mp4', { prompt: 'a cat surfing', wait: true });
 */
export class Vesta extends VestaClient {
  constructor(options: VestaOptions = {}) {
    super(options, nodePlatform());
  }
}
