/**
 * The operations Score and Rank share, parameterised by session kind. Each route file under
 * `routes/score/` and `routes/rank/` registers one of these with its own path, schema and
 * operationId.
 */
import type { FastifyContextConfig, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { SessionKind } from '../../../db/schema.js';
import { AppError } from '../../../errors.js';
import type { AppDeps } from '../../app-deps.js';
import { publicBaseOf } from '../../public-base.js';
import { OWNED_RESOURCE_ERRORS } from '../../schemas/common.js';
import type { AuthenticatedUser } from '../../request-context.js';
import type {
  RankSessionView,
  ScoreSessionView,
  UploadUrlInput,
  UploadUrlView,
  VideoView,
} from '../../../domain/views/score-rank.js';

const TAG_OF = { score: 'Score', rank: 'Rank' } as const;

/**
 * The options of a route about the caller's Score or Rank session named by `{id}` (its run id):
 * the ownership walker's resource kind, the workflow's tag, and the route's own config and schema.
 */
export function sessionRoute<S extends FastifySchema>(
  kind: keyof typeof TAG_OF,
  schema: S,
  config: FastifyContextConfig = {},
) {
  return { config: { resource: `${kind}-session`, ...config }, schema: { tags: [TAG_OF[kind]], ...schema } };
}

/** The errors of a request about a clip of the caller's session; a session reset since is 409. */
export const SESSION_CLIP_ERRORS = [...OWNED_RESOURCE_ERRORS, 'conflict'] as const;

export function userOf(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw new AppError('unauthorized', 'missing X-API-Key header');
  return request.user;
}

/** The caller's Score or Rank session (created if absent), or a fresh one after a reset. */
export async function viewSession(
  deps: AppDeps,
  kind: 'score' | 'rank',
  request: FastifyRequest,
  reset: boolean,
): Promise<ScoreSessionView | RankSessionView> {
  const { sessions } = deps.services;
  const userId = userOf(request).id;
  const session = reset
    ? await sessions.reset(userId, kind, request.log)
    : await sessions.getOrCreate(userId, kind);
  return kind === 'score' ? sessions.viewScore(session) : sessions.viewRank(session);
}

export async function createUploadUrl(
  deps: AppDeps,
  kind: SessionKind,
  request: FastifyRequest,
  runId: string,
  body: UploadUrlInput,
  reply: FastifyReply,
): Promise<UploadUrlView> {
  const session = await deps.services.sessions.requireCurrent(userOf(request).id, kind, runId);
  const view = await deps.services.uploads.createUploadUrl(session, body, () =>
    publicBaseOf(request, deps.config),
  );
  reply.code(201);
  return view;
}

export async function confirmUpload(
  deps: AppDeps,
  kind: SessionKind,
  request: FastifyRequest,
  runId: string,
  videoId: string,
): Promise<VideoView> {
  return deps.services.uploads.confirm(userOf(request).id, kind, runId, videoId);
}
