/** Writes openapi/openapi.json from the server's route schemas (`npm run openapi`, after a build). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, formatOpenApiDocument } from '@vesta/server';

const target = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url));
writeFileSync(target, formatOpenApiDocument(await buildOpenApiDocument()));
process.stdout.write(`wrote ${target}\n`);
