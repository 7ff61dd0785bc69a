/**
 * Builds the HTTP application: plugins, hooks (request id, auth, idempotency, metrics, request
 * logs), the error catalogue's handler, the OpenAPI document, and every route module listed in
 * `http/routes/index.ts`.
 */
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import { nameSharedSchemas } from './http/openapi-components.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController } from 'fastify';
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  FastifyServerOptions,
} from 'fastify';
import { AppError } from './errors.js';
import type { AppDeps, RouteModule } from './http/app-deps.js';
import { API_PREFIX, registerAuth } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { clientErrorHandler, frameworkErrorHandler, jsonDepthExceeds } from './http/framework-errors.js';
import { IdempotencyHeaders, registerIdempotency } from './http/idempotency.js';
import { registerRateLimits } from './http/rate-limit.js';
import { createHttpMetrics } from './http/metrics.js';
import type { HttpMetrics } from './http/metrics.js';
import { genRequestId, normaliseSource, redactUrl } from './http/request-context.js';
import { lazyChildLoggerFactory } from './http/request-log.js';
import { validatorCompiler } from './http/validator.js';
import { appendRouteHook } from './http/route-hooks.js';
import { withRequestErrors } from './http/schemas/common.js';
import { ROUTE_MODULES } from './http/routes/index.js';

export interface BuildAppOptions {
  /** Where request logs go (default stdout); tests pass a stream to capture them. */
  logStream?: NodeJS.WritableStream;
  /** Route modules to register (default: all of `ROUTE_MODULES`). */
  routes?: readonly RouteModule[];
  /** Metrics registry; default: a fresh one with process metrics. */
  metrics?: HttpMetrics;
}

export type App = FastifyInstance;

/** The router's limit on one path parameter (ids are at most 64 characters). */
export const MAX_PARAM_LENGTH = 100;

export const OPENAPI_INFO = {
  title: 'Vesta — Video Evaluation Service',
  version: '1.0.0',
  description:
    'Score text-to-video clips on VBench dimensions, rank candidate clips for one prompt, and benchmark models. Every /api/v1 request carries X-API-Key (except the token-authenticated upload PUT and this document). Errors are `{ code, detail, requestId }`; clients branch on `code`. State-changing POSTs honour Idempotency-Key (24 h replay of the first 2xx with `Idempotent-Replayed: true`; same key with another body is 409 idempotency_mismatch; a duplicate while the first still runs is 409 conflict with Retry-After). Optional rate limits (per API key, per client address; off unless the operator sets them): every response then carries the IETF RateLimit-Policy and RateLimit fields, and a refusal is 429 rate_limited with Retry-After. See docs/api.md.',
  license: { name: 'MIT', identifier: 'MIT' },
};

/**
 * Where the API is served: one Vesta server, whose address is the deployment's (a variable, so the
 * committed document stays the same everywhere); `vesta serve` listens on localhost:8080 by default.
 */
export const OPENAPI_SERVERS = [
  {
    url: '{origin}',
    description:
      'A Vesta server: its address (scheme, host and port; VESTA_PUBLIC_URL where set). Paths start with /api/v1.',
    variables: {
      origin: {
        default: 'http://localhost:8080',
        description: 'The server address; `vesta serve` listens on http://localhost:8080 by default.',
      },
    },
  },
];

export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<App> {
  const { config } = deps;
  const logger: FastifyServerOptions['logger'] =
    config.logLevel === 'silent' && !options.logStream
      ? false
      : {
          level: config.logLevel,
          ...(options.logStream ? { stream: options.logStream } : {}),
          serializers: {
            req: (req: { method?: string; url?: string }) => ({
              method: req.method,
              url: redactUrl(req.url ?? ''),
            }),
          },
        };

  const app = Fastify({
    logger,
    genReqId: genRequestId,
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Router and HTTP-parser errors answer through the catalogue too (http/framework-errors.ts).
    frameworkErrors: frameworkErrorHandler(MAX_PARAM_LENGTH),
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);

  const metrics = options.metrics ?? createHttpMetrics();
  app.decorate('vestaMetrics', metrics);

  // JSON bodies: empty means "no body" (POSTs such as reset take none); malformed is 400.
  // Only JSON is accepted on JSON routes: any other Content-Type is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // Nesting is bounded before parsing: a few KB of brackets must not reach the validator's recursion.
    if (jsonDepthExceeds(text, config.jsonMaxDepth)) {
      done(
        new AppError(
          'validation_failed',
          `the JSON body is nested deeper than ${config.jsonMaxDepth} levels (VESTA_JSON_MAX_DEPTH)`,
        ),
        undefined,
      );
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new AppError('validation_failed', 'the body is not valid JSON'), undefined);
    }
  });

  app.decorateRequest('source', 'none');
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    request.source = normaliseSource(request.headers['x-service-source']);
    done();
  });

  await app.register(cors, {
    origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'X-API-Key', 'Idempotency-Key', 'X-Service-Source', 'X-Request-Id'],
    exposedHeaders: [
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Request-Id',
      'Idempotent-Replayed',
      'Content-Disposition',
    ],
    maxAge: 600,
    // An OPTIONS without Origin / Access-Control-Request-Method is a plain OPTIONS, answered 204
    // like a preflight, not a text/plain 400 outside the catalogue.
    strictPreflight: false,
  });

  // Every registered route, for tooling and the tests that walk them all.
  const routes: RegisteredRoute[] = [];
  app.decorate('vestaRoutes', routes);
  // Every route documents the errors answered before its handler (withRequestErrors); idempotent
  // POSTs document their optional Idempotency-Key header (and validate its shape).
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (schema?.response !== undefined)
      route.schema = {
        ...schema,
        response: withRequestErrors(schema.response as Record<string | number, unknown>, {
          validates:
            schema.params !== undefined ||
            schema.querystring !== undefined ||
            schema.body !== undefined ||
            schema.headers !== undefined ||
            route.config?.idempotent === true,
          body: schema.body !== undefined || route.config?.noBody === true,
          noBody: route.config?.noBody === true,
          pathParams: route.url.includes(':'),
        }),
      };
    if (route.config?.idempotent === true)
      route.schema = { ...(route.schema ?? {}), headers: IdempotencyHeaders };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      routes.push({ method, url: route.url, config: { ...(route.config ?? {}) }, schema: route.schema });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      servers: OPENAPI_SERVERS,
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          DashboardSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'vesta_session',
            description:
              "The web dashboard's session (HttpOnly cookie set by sign-in). Accepted only from the dashboard's own origin; state-changing requests also need the session's X-CSRF-Token.",
          },
        },
      },
      security: [{ ApiKey: [] }, { DashboardSession: [] }],
    },
    transform: ({ schema, url }) => {
      const hidden = !url.startsWith(API_PREFIX) || url === `${API_PREFIX}/openapi.json`;
      return { schema: hidden ? { ...(schema ?? {}), hide: true } : schema, url };
    },
    // Titled route schemas become named components used by $ref (both SDKs generate from them).
    transformObject: (documents) =>
      'openapiObject' in documents ? nameSharedSchemas(documents.openapiObject) : documents.swaggerObject,
  });

  registerErrorHandling(app);
  // Cookies are parsed only where a route asks (the session check); never on key requests.
  await app.register(cookie, { hook: false });
  registerAuth(app, {
    apiKeys: deps.services.apiKeys,
    accounts: deps.services.accounts,
    publicOrigin: config.publicUrl === null ? null : new URL(config.publicUrl).origin,
  });
  registerRateLimits(app, deps.repos.rateLimits(), config.rateLimits);
  registerIdempotency(app, deps.repos.idempotency);

  // Routes that take no body: any field sent is one the route does not accept.
  app.addHook('onRoute', (route) => {
    if (route.config?.noBody === true) appendRouteHook(route, 'preValidation', refuseBody);
  });

  // While shutting down, answers close their connection so that keep-alive cannot hold the close open.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  // One line per request, written by the app's logger with the request id as a field (the same
  // line a per-request child would write, without building one; see http/request-log.ts).
  const log = app.log;
  app.addHook('onResponse', (request, reply, done) => {
    const operation =
      request.routeOptions.schema?.operationId ??
      (request.routeOptions.url === undefined ? 'not_found' : request.routeOptions.url);
    const elapsed = reply.elapsedTime;
    metrics.observe(
      { operation, method: request.method, status: reply.statusCode, source: request.source },
      elapsed / 1000,
    );
    log.info(
      {
        requestId: request.id,
        operation,
        method: request.method,
        url: redactUrl(request.url),
        statusCode: reply.statusCode,
        source: request.source,
        userId: request.user?.id,
        durationMs: Math.round(elapsed * 10) / 10,
      },
      'request completed',
    );
    done();
  });

  for (const route of options.routes ?? ROUTE_MODULES) {
    await app.register((child, _opts, done) => {
      route(child, { deps });
      done();
    });
  }
  await app.ready();
  return app;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  config: FastifyContextConfig;
  schema: FastifySchema | undefined;
}

function refuseBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const body: unknown = request.body;
  if (body === undefined || body === null) return done();
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return done();
  const fields = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  done(
    new AppError(
      fields.length > 0 ? 'invalid_field' : 'validation_failed',
      fields.length > 0
        ? `this route takes no body; got field(s) ${fields.join(', ')}`
        : 'this route takes no body',
    ),
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    vestaMetrics: HttpMetrics;
    vestaRoutes: readonly RegisteredRoute[];
  }
}
