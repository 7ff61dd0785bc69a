/** Schemas of the Bench routes: the run, its clips, its log lines, pages of each, and the queries. */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationFailed } from '../../../errors.js';
import { BENCH_STATUSES } from '../../../domain/bench-state.js';
import { BENCH_TASK_STATES } from '../../../domain/clip-lifecycle.js';
import { PromptNotice, UnscoredDimension } from '../../schemas/sessions.js';

export const RUN_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;
export const VIDEO_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;
export const LOG_PAGE = { defaultLimit: 100, maxLimit: 1000 } as const;
export const MAX_PAGE = 100_000;

export const MAX_RUN_NAME_LENGTH = 200;

export function pageQuery(limits: { defaultLimit: number; maxLimit: number }) {
  return Type.Object({
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE,
        default: 1,
        description: `Page number, from 1 (at most ${MAX_PAGE}). 0, negative, fractional or non-numeric values are 400 validation_failed; a page past the end is empty.`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: limits.maxLimit,
        default: limits.defaultLimit,
        description: `Items per page: default ${limits.defaultLimit}, maximum ${limits.maxLimit}. Out of range or non-numeric is 400 validation_failed.`,
      }),
    ),
  });
}

/**
 * The query converter would truncate `page=1.5` to 1; this route hook refuses anything but
 * whole decimal numbers before conversion, so a fraction or an exponent is 400 validation_failed.
 */
export function strictPageQuery(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const query = request.query as Record<string, unknown>;
  for (const name of ['page', 'limit']) {
    const raw = query[name];
    if (raw !== undefined && (typeof raw !== 'string' || !/^-?\d{1,12}$/.test(raw))) {
      done(validationFailed(`the query parameter ${name} must be a whole number`));
      return;
    }
  }
  done();
}

/** The page and limit to use, with the defaults applied (the validator checked the ranges). */
export function pageOfQuery(
  query: { page?: number; limit?: number },
  limits: { defaultLimit: number },
): { page: number; limit: number } {
  return { page: query.page ?? 1, limit: query.limit ?? limits.defaultLimit };
}

export const BenchIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, description: 'The Bench run id (`bench_…`).' }) },
  { additionalProperties: false },
);

export const BenchStatusSchema = Type.Enum(BENCH_STATUSES, {
  title: 'BenchStatus',
  description:
    'queued → generating → evaluating → completed | failed | cancelled. completed, failed and cancelled are terminal. Cancel is allowed from queued, generating and evaluating; delete only from a terminal status.',
});

const ErrorInfo = Type.Union([Type.Object({ code: Type.String(), detail: Type.String() }), Type.Null()]);
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });

export const CreateBenchRunBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_RUN_NAME_LENGTH,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: 'A label for the run: 1–200 characters, no control characters.',
    }),
    dimensions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 16,
      uniqueItems: true,
      description:
        'Dimension ids from GET /api/v1/dimensions; each must be used by Bench and have a method available now (defaultMethod not null). Stored in VBench order. An unknown id is 400 validation_failed naming it.',
    }),
    model_id: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'A model id from GET /api/v1/models. An unknown id is 400 validation_failed naming it.',
    }),
    runner_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          "Optional. When given, one of the caller's registered runners serving model_id, and only it may generate the clips; when left out, any of the caller's runners serving the model may. An unknown runner, another user's, or one not serving the model is 400 validation_failed.",
      }),
    ),
    samples_per_prompt: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        default: 5,
        description:
          'Clips generated per prompt, 1–10; default 5 as VBench samples (VBench samples 25 for temporal_flickering and keeps 5 after a static filter; Vesta uses this value for every dimension).',
      }),
    ),
    prompts_per_dimension: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description:
          'At most this many prompts of each clip group (the first ones of the suite); default all. Small values make quick runs; scores from a subset are not comparable with full runs.',
      }),
    ),
  },
  { title: 'CreateBenchRunBody', additionalProperties: false },
);
export type CreateBenchRunBodyT = Static<typeof CreateBenchRunBody>;

const Ci = (what: string) => ({
  ci95_low: Type.Union([Type.Number(), Type.Null()], {
    description: `Lower end of the 95 % confidence interval of ${what}; null when there is no score, or the score rests on a clip group of one prompt (its spread cannot be estimated).`,
  }),
  ci95_high: Type.Union([Type.Number(), Type.Null()], {
    description: `Upper end of the 95 % confidence interval of ${what}; null as ci95_low.`,
  }),
});

export const BenchScorecard = Type.Object(
  {
    level: Type.Number({ description: 'Confidence level of every interval: 0.95.' }),
    resamples: Type.Integer({ description: 'Bootstrap replicates drawn (10,000).' }),
    interval_method: Type.String({
      description:
        "`prompt_bootstrap_t`: prompts resampled with replacement (a prompt's clips together), n − 1 of the n prompts of each clip group, seeded from the run id (the same run always gives the same interval); the interval is score ± t(0.975; df)·SE with SE the replicates' standard deviation and df by Welch–Satterthwaite over the clip groups. Quality, Semantic and Total are recomputed from every replicate's dimension means. See docs/statistics.md.",
    }),
    final: Type.Boolean({
      description:
        'True once the run has ended: the scorecard no longer changes (it is stored with the run).',
    }),
    dimensions: Type.Array(
      Type.Object({
        dimension: Type.String(),
        category: Type.Union([Type.Literal('quality'), Type.Literal('semantic')]),
        score: Type.Union([Type.Number(), Type.Null()], {
          description: "Mean of the per-clip values (VBench's aggregate); null before a clip is scored.",
        }),
        normalised_score: Type.Union([Type.Number(), Type.Null()], {
          description: "weight·(score − min)/(max − min) with VBench's leaderboard constants.",
        }),
        clips: Type.Integer({ description: 'Scored clips behind the score.' }),
        prompts: Type.Integer({
          description: 'Prompts behind the score (the units the bootstrap resamples).',
        }),
        methods: Type.Array(Type.String(), { description: 'Methods that produced the scores.' }),
        ...Ci('the score'),
      }),
      { description: "One row per dimension of the run, in VBench's order." },
    ),
    aggregates: Type.Array(
      Type.Object({
        name: Type.Union([Type.Literal('Quality'), Type.Literal('Semantic'), Type.Literal('Total')]),
        value: Type.Union([Type.Number(), Type.Null()], {
          description:
            "VBench's leaderboard value (normalised scale); null when its group has no scored dimension.",
        }),
        clips: Type.Integer(),
        prompts: Type.Integer(),
        partial: Type.Boolean({
          description:
            'True when some dimension of its VBench group is not scored: the value is averaged over those that are (VBench would count the others as 0).',
        }),
        ...Ci('the value'),
      }),
    ),
  },
  {
    title: 'BenchScorecard',
    description:
      "A run's scorecard: per dimension the mean of its clips and Quality, Semantic and Total as VBench's leaderboard computes them, each with a 95 % confidence interval and the clips and prompts behind it.",
  },
);

export const BenchRun = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    dimensions: Type.Array(Type.String(), { description: "The run's dimensions in VBench order." }),
    model_id: Type.String(),
    runner_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The only runner allowed to take the run, or null for any runner serving the model.',
    }),
    samples_per_prompt: Type.Integer({ description: 'Clips generated per prompt.' }),
    prompts_per_dimension: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The per-clip-group prompt limit; null: every prompt of the suite.',
    }),
    suite_version: Type.Union([Type.String(), Type.Null()], {
      description: 'The prompt suite the tasks were planned from (GET /api/v1/dimensions/{id}/prompts).',
    }),
    status: BenchStatusSchema,
    progress: Type.Object(
      {
        tasks_total: Type.Integer({
          description: 'Clips to generate (prompt × sample), planned when the run is created.',
        }),
        tasks_generated: Type.Integer({ description: 'Clips uploaded by runners and accepted.' }),
        tasks_done: Type.Integer({ description: 'Clips generated and evaluated.' }),
        tasks_failed: Type.Integer({ description: 'Clips that failed for good (generation or upload).' }),
        clips_total: Type.Integer({
          description: 'Clips the run expects to evaluate: tasks_total minus failed and cancelled tasks.',
        }),
        clips_evaluated: Type.Integer({
          description: 'Clips whose evaluation finished (scored, or its scoring failed).',
        }),
      },
      { description: 'Progress of the run, counted over its tasks (one task = one clip).' },
    ),
    error: Type.Union([Type.Object({ code: Type.String(), detail: Type.String() }), Type.Null()], {
      description: 'Why the run failed; null otherwise.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: Type.Union([Timestamp, Type.Null()], { description: 'When the run left queued.' }),
    finished_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the run reached a terminal status.',
    }),
    prompt_notice: Type.Union([PromptNotice, Type.Null()], {
      description:
        "Set when none of the run's scores reads the prompts: no dimension of the run reads them, and those that would (overall_consistency, temporal_style) cannot be scored on this server because their models are missing. Null otherwise (also when such a dimension could be scored and was not chosen).",
    }),
    unscored_dimensions: Type.Array(UnscoredDimension, {
      description:
        "The run's dimensions that could not be scored: those with no method on this server now (their models are missing), and, once the run has ended, those with no scored clip, with the failure its clips recorded. Each says why and, where models would fix it, the command that fetches them. Empty otherwise.",
    }),
    scorecard: Type.Union([BenchScorecard, Type.Null()], {
      description:
        'The final scorecard with its 95 % intervals, once the run has ended (stored then; null while it runs: GET /api/v1/bench/{id}/scorecard has the scores so far).',
    }),
  },
  { title: 'BenchRun', description: 'A Bench run.' },
);

function pageOf<T extends Parameters<typeof Type.Array>[0]>(item: T, title: string, description: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      page: Type.Integer(),
      limit: Type.Integer(),
      total: Type.Integer({ description: 'Items in the whole list.' }),
      hasMore: Type.Boolean({ description: 'True when a later page has items.' }),
    },
    { title, description },
  );
}

export const BenchRunPage = pageOf(
  BenchRun,
  'BenchRunPage',
  "A page of the caller's Bench runs, newest first.",
);

export const BenchVideo = Type.Object(
  {
    task_id: Type.String(),
    seq: Type.Integer({ description: "Position in the run's task list." }),
    prompt: Type.String(),
    auxiliary: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: 'Auxiliary prompt info (object, color, …) for semantic dimensions.',
    }),
    prompt_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The suite prompt (`<clip group>-<nn>`).',
    }),
    clip_group: Type.Union([Type.String(), Type.Null()], {
      description: 'The clip group whose dimensions this clip is scored on.',
    }),
    dimensions: Type.Array(Type.String(), { description: "The run's dimensions this clip is scored on." }),
    sample_index: Type.Integer(),
    seed: Type.Integer(),
    state: Type.Enum(BENCH_TASK_STATES, {
      description: 'pending → claimed → uploaded → evaluating → done, or failed / cancelled.',
    }),
    runner_id: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Integer(),
    video_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The uploaded clip, once there is one.',
    }),
    error: ErrorInfo,
    scores: Type.Array(
      Type.Object({
        dimension: Type.String(),
        value: Type.Number(),
        method: Type.String(),
        method_version: Type.String(),
      }),
    ),
    failures: Type.Array(
      Type.Object({ dimension: Type.String(), code: Type.String(), detail: Type.String() }),
    ),
  },
  { title: 'BenchVideo', description: 'One clip of a Bench run and its per-dimension results.' },
);

export const BenchVideoPage = pageOf(
  BenchVideo,
  'BenchVideoPage',
  "A page of the run's clips, in task order.",
);

export const BenchLogLine = Type.Object(
  {
    seq: Type.Integer({ description: 'Position in the log.' }),
    time: Timestamp,
    source: Type.Union([Type.Literal('server'), Type.Literal('runner'), Type.Literal('evaluator')]),
    level: Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
    message: Type.String(),
  },
  { title: 'BenchLogLine' },
);

export const BenchLogPage = pageOf(
  BenchLogLine,
  'BenchLogPage',
  "A page of the run's log lines, oldest first.",
);
