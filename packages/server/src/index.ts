/** @vesta/server: the Vesta HTTP service (Fastify), its composition roots, and operator functions. */
export { loadConfig, ConfigError } from './config.js';
export { SERVER_ROLES } from './config.js';
export type { ServerConfig, ServerRole, EngineConfig, LogLevel } from './config.js';
export { buildApp, OPENAPI_INFO } from './app.js';
export type { App, BuildAppOptions } from './app.js';
export { startServer, startRole, engineOptionsFrom } from './roles/all.js';
export { startApi } from './roles/api.js';
export { startWorker } from './roles/worker.js';
export type { RunningServer, StartOptions, EngineFactory } from './roles/all.js';
export { runMain } from './main.js';
export { AppError, ERROR_CATALOGUE, ERROR_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { openDatabase } from './db/connection.js';
export type { DatabaseTarget, OpenedDatabase } from './db/connection.js';
export { ApiKeyService, DISPLAY_PREFIX_LENGTH } from './services/api-key.service.js';
export type { CreatedKey } from './services/api-key.service.js';
export { AccountService } from './services/account.service.js';
export { UserAdminService } from './services/user-admin.service.js';
export { Repositories } from './repositories/index.js';
export type { AppDeps, RouteModule, TypedApp } from './http/app-deps.js';
export {
  createApiKey,
  revokeApiKey,
  addModel,
  createUser,
  resetPassword,
  disableUser,
  generatePassword,
} from './admin.js';
export type { AddModelInput } from './admin.js';
export { buildOpenApiDocument, formatOpenApiDocument } from './openapi.js';
export { openJobQueue } from './adapters/job-queue/factory.js';
export type { JobQueueSettings } from './adapters/job-queue/factory.js';
export { PermanentJobError } from './ports/job-queue.js';
export type { JobHandler, JobQueue, JobQueueStats, Logger as JobLogger } from './ports/job-queue.js';
