/** Schemas of the Score and Rank workflows: sessions, videos, scores, uploads, the leaderboard. */
import { Type } from 'typebox';
import { VIDEO_CONTENT_TYPES } from '../../domain/views/score-rank.js';

export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_PROMPT_LENGTH = 2000;
export const MAX_AUXILIARY_LENGTH = 200;

export const AUXILIARY_KEYS = [
  'object',
  'color',
  'relationship',
  'scene',
  'appearance_style',
  'action',
  'object_a',
  'object_b',
] as const;

const auxValue = () => Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUXILIARY_LENGTH }));
export const Auxiliary = Type.Object(
  {
    object: auxValue(),
    color: auxValue(),
    relationship: auxValue(),
    scene: auxValue(),
    appearance_style: auxValue(),
    action: auxValue(),
    object_a: auxValue(),
    object_b: auxValue(),
  },
  {
    title: 'Auxiliary',
    additionalProperties: false,
    description:
      "Optional auxiliary prompt info for VBench's semantic dimensions (VBench's `auxiliary_info`): object, color, relationship, scene, appearance_style, action; object_a/object_b for multiple_objects.",
  },
);

export const VideoState = Type.Union(
  [
    Type.Literal('awaiting_upload'),
    Type.Literal('uploaded'),
    Type.Literal('queued'),
    Type.Literal('scoring'),
    Type.Literal('scored'),
    Type.Literal('failed'),
  ],
  { title: 'VideoState', description: 'awaiting_upload → uploaded → queued → scoring → scored | failed' },
);

export const FramesUsed = Type.Object(
  {
    count: Type.Integer(),
    width: Type.Integer(),
    height: Type.Integer(),
    sampling: Type.Object(
      { kind: Type.String() },
      { additionalProperties: true, description: 'How frames were sampled (all, every, uniform, fps).' },
    ),
    fps: Type.Optional(
      Type.Number({
        description:
          "The clip's frame rate, in frames per second, that the sampling and the frames' times were computed with: the container's mean rate, or an assumed one (`fpsAssumed`). Absent on scores stored before the rate was recorded.",
      }),
    ),
    fpsAssumed: Type.Optional(
      Type.Boolean({
        description:
          'True when the clip states no usable frame rate and `fps` is assumed: a GIF whose frames carry no delay or one under 2 hundredths of a second is read at 10 cs per such frame (the convention browsers follow), a stream with neither a rate nor a duration at 25 fps. Dimensions that sample by time (dynamic_degree) read this rate. Absent on scores stored before it was recorded.',
      }),
    ),
  },
  { title: 'FramesUsed' },
);

export const Score = Type.Object(
  {
    dimension: Type.String(),
    value: Type.Number({ description: "The per-clip value in the dimension's range." }),
    method: Type.String({ description: '`vbench` (VBench protocol and model) or `lite` (model-free).' }),
    methodVersion: Type.String(),
    frames: FramesUsed,
    models: Type.Array(Type.Object({ id: Type.String(), revision: Type.String() })),
    elapsedMs: Type.Number(),
  },
  { title: 'Score' },
);

export const DimensionFailure = Type.Object(
  {
    dimension: Type.String(),
    code: Type.String(),
    detail: Type.String(),
  },
  { title: 'DimensionFailure' },
);

export const VideoError = Type.Object(
  {
    code: Type.String({
      description: 'An engine error code such as not_a_video, truncated, unsupported_codec.',
    }),
    detail: Type.String(),
  },
  { title: 'VideoError' },
);

export const PromptNotice = Type.Object(
  {
    code: Type.Literal('prompt_not_read'),
    detail: Type.String({
      description:
        "In words, to show beside the numbers, e.g. 'this ranking does not read the prompt: overall_consistency and temporal_style need the model clip-vit-b32 — `vesta models pull clip-vit-b32`'.",
    }),
    dimensions: Type.Array(Type.String(), {
      description: 'The dimensions that read the prompt and were not scored.',
    }),
    models: Type.Array(Type.String(), { description: 'The model ids that would score them.' }),
    command: Type.String({ description: 'The command that fetches those models on the server.' }),
  },
  {
    title: 'PromptNotice',
    description:
      'Scores of a clip made from a prompt that read nothing of the prompt: no dimension that reads it (overall_consistency, temporal_style) was scored, because the server lacks their models. The numbers judge the pixels alone.',
  },
);

export const UnscoredDimension = Type.Object(
  {
    dimension: Type.String(),
    code: Type.String({
      description:
        "model_unavailable (its models are not on this server), method_unavailable (no method of it in this build), or the engine's code recorded on its clips' failures.",
    }),
    detail: Type.String({
      description:
        "In words, to show beside the numbers, e.g. 'overall_consistency was not scored: it needs the model clip-vit-b32, not on this server — `vesta models pull clip-vit-b32`'.",
    }),
    models: Type.Array(Type.String(), {
      description: 'The model ids that would score it; empty when no model would.',
    }),
    command: Type.Union([Type.String(), Type.Null()], {
      description: 'The command that fetches those models on the server; null when none would help.',
    }),
  },
  {
    title: 'UnscoredDimension',
    description: 'A dimension the user asked for that could not be scored on this server, why, and the fix.',
  },
);

export const Video = Type.Object(
  {
    videoId: Type.String(),
    fileName: Type.String(),
    contentType: Type.String(),
    prompt: Type.Union([Type.String(), Type.Null()]),
    auxiliary: Type.Union([Auxiliary, Type.Null()]),
    state: VideoState,
    error: Type.Union([VideoError, Type.Null()]),
    sizeBytes: Type.Union([Type.Integer(), Type.Null()]),
    dimensions: Type.Array(Type.String(), {
      description: 'Dimensions scheduled for scoring (set at confirm).',
    }),
    scores: Type.Array(Score),
    failures: Type.Array(DimensionFailure, {
      description: 'Dimensions that could not be scored, with the engine code.',
    }),
    promptNotice: Type.Union([PromptNotice, Type.Null()], {
      description:
        'Set on a scored clip made from a prompt when none of its scores reads the prompt (its models are not on the server); null otherwise.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    uploadedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    confirmedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    scoredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Video' },
);

export const ScoreSession = Type.Object(
  {
    runId: Type.String({ description: 'The run id used in paths; a reset gives a new one.' }),
    kind: Type.Literal('score'),
    createdAt: Type.String({ format: 'date-time' }),
    videos: Type.Array(Video),
  },
  { title: 'ScoreSession' },
);

export const RankSession = Type.Object(
  {
    runId: Type.String({ description: 'The run id used in paths; a reset gives a new one.' }),
    kind: Type.Literal('rank'),
    prompt: Type.Union([Type.String(), Type.Null()], {
      description:
        'The locked prompt; null until the first candidate is stored (its upload confirmed): an upload-url whose bytes never arrive locks nothing.',
    }),
    promptLocked: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    videos: Type.Array(Video),
  },
  { title: 'RankSession' },
);

const fileNameSchema = Type.String({
  minLength: 1,
  maxLength: MAX_FILE_NAME_LENGTH,
  description: `Name of the clip file: 1-${MAX_FILE_NAME_LENGTH} characters, no path separators, no "..", no control characters.`,
});
/** The clip's exact size, declared up front: with an S3 blob store it is bound into the upload URL. */
export const sizeBytesSchema = Type.Integer({
  minimum: 1,
  description:
    "The clip's exact size in bytes (optional). Over the upload limit it is refused at once with 413. With an S3-compatible blob store it is bound into the presigned upload URL: the PUT must then carry exactly this Content-Length (returned in `headers`). Without it, the size limit is checked when the upload is confirmed.",
});
const contentTypeSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  description: `Media type of the clip; one of ${VIDEO_CONTENT_TYPES.join(', ')}.`,
});

export const ScoreUploadUrlBody = Type.Object(
  {
    fileName: fileNameSchema,
    contentType: contentTypeSchema,
    prompt: Type.String({
      minLength: 1,
      maxLength: MAX_PROMPT_LENGTH,
      description: 'The text prompt the clip was made from.',
    }),
    auxiliary: Type.Optional(Auxiliary),
    sizeBytes: Type.Optional(sizeBytesSchema),
  },
  { title: 'ScoreUploadUrlBody', additionalProperties: false },
);

export const RankUploadUrlBody = Type.Object(
  {
    fileName: fileNameSchema,
    contentType: contentTypeSchema,
    prompt: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_PROMPT_LENGTH,
        description:
          'Required until the session is locked (by the first confirmed candidate); afterwards optional, and when sent it must equal the locked prompt (compared after trimming surrounding white space).',
      }),
    ),
    auxiliary: Type.Optional(Auxiliary),
    sizeBytes: Type.Optional(sizeBytesSchema),
  },
  { title: 'RankUploadUrlBody', additionalProperties: false },
);

export const UploadUrlResponse = Type.Object(
  {
    videoId: Type.String(),
    uploadUrl: Type.String({
      format: 'uri',
      description:
        "PUT the raw bytes here, with exactly the headers below and no others that authenticate (no API key: the URL is its own credential). With the default local blob store the URL is the service's own upload route and carries a signed single-use token; it is minted under VESTA_PUBLIC_URL, or, where that is unset, under the origin this request was sent to (so a page loaded from http://127.0.0.1:8080 uploads there), whose Host must name this machine (loopback, the listen address or an address of the machine, its host name) or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed`. With an S3-compatible blob store (VESTA_BLOB_STORE=s3) it is a presigned PUT straight to the bucket: the bytes never pass through the API, Content-Type (and Content-Length when sizeBytes was declared) are part of its signature, the store itself answers the PUT (its own XML errors, e.g. 403 SignatureDoesNotMatch for another type or size), and the URL can be used again until it expires; the clip is only taken once confirm-upload checked it.",
    }),
    method: Type.Literal('PUT'),
    headers: Type.Object(
      {
        'Content-Type': Type.String(),
        'Content-Length': Type.Optional(
          Type.String({
            description:
              'Present when the clip size was declared and the store binds it (S3): the body must be exactly this many bytes.',
          }),
        ),
      },
      { description: 'Headers to send with the PUT, exactly as given.' },
    ),
    expiresAt: Type.String({ format: 'date-time' }),
    maxBytes: Type.Integer({
      description: 'Largest body the PUT accepts (the declared size where the store binds it).',
    }),
  },
  { title: 'UploadUrlResponse' },
);

export const ConfirmUploadBody = Type.Object(
  { videoId: Type.String({ minLength: 1, maxLength: 64 }) },
  { title: 'ConfirmUploadBody', additionalProperties: false },
);

export const LeaderboardEntry = Type.Object(
  {
    rank: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Position among scored candidates; null for unscored ones (listed last).',
    }),
    videoId: Type.String(),
    fileName: Type.String(),
    overall: Type.Union([Type.Number(), Type.Null()]),
    scores: Type.Array(Score),
    state: VideoState,
  },
  { title: 'LeaderboardEntry' },
);

export const Leaderboard = Type.Object(
  {
    runId: Type.String(),
    prompt: Type.Union([Type.String(), Type.Null()]),
    formula: Type.String({ description: 'How `overall` is computed.' }),
    uncertainty: Type.String({
      description:
        'Why the entries carry no confidence interval: each candidate is one clip, scored once on deterministically sampled frames, so there is nothing to resample (Bench runs, with many clips per prompt and many prompts, carry 95 % intervals).',
    }),
    promptNotice: Type.Union([PromptNotice, Type.Null()], {
      description:
        'Set when the ranking reads nothing of the locked prompt: no scored candidate has a dimension that reads it (their models are not on the server), so the order judges the pixels alone. Null otherwise.',
    }),
    entries: Type.Array(LeaderboardEntry),
  },
  { title: 'Leaderboard' },
);

export const UploadPutResponse = Type.Object(
  {
    videoId: Type.String(),
    state: Type.Literal('uploaded'),
    sizeBytes: Type.Integer(),
  },
  { title: 'UploadPutResponse' },
);
