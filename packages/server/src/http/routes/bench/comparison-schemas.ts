/** Schemas of the run comparison (`GET /api/v1/bench/compare`) and of a model's baseline run. */
import { Type } from 'typebox';

const Num = Type.Number();
const NullableNum = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const CompareQuery = Type.Object(
  {
    runs: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        "Run ids, comma-separated: the baseline first, then 1–9 candidates (2–10 runs, each once, all the caller's). Fewer than 2, more than 10, or one twice is 400 validation_failed; an unknown id 404; another user's 403; a run without any scored clip 409 `no_scored_clips` (a run still going is allowed: `runs[].label` says how many clips are scored).",
    }),
    dimensions: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'Comma-separated dimension ids to compare (default: every dimension any of the runs scored); Quality, Semantic and Total are recomputed over the compared ones. With `fail_on_regression`, these are the rows the gate looks at, and `Quality`, `Semantic` or `Total` may be named too to gate them. An unknown name is 400 validation_failed.',
      }),
    ),
    fail_on_regression: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          'DELTA ≥ 0: adds the regression gate (exactly 2 runs). A gated row regressed when the candidate is worse than the baseline by more than DELTA (in the row\'s own units) with 97.5 % one-sided confidence, family-wise over the gated rows by Holm: the one-sided sign-flip (paired) or relabelling (unpaired) permutation test of "candidate − baseline ≥ −DELTA", Holm-adjusted p < 0.025. Negative or not a number is 400 validation_failed.',
      }),
    ),
    prompt_limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100000,
        description:
          "At most this many per-prompt rows in each comparison's `prompts` (the largest drops; default: every prompt). `0` leaves them out — what a list that shows only the Total against a baseline asks for; the rows, intervals and gate are the same whatever the limit. Not an integer in 0–100000 is 400 validation_failed.",
      }),
    ),
  },
  { additionalProperties: false },
);

const CompareRow = Type.Object({
  name: Type.String({
    description: 'A dimension id, or Quality, Semantic, Total (recomputed over the compared dimensions).',
  }),
  kind: Type.Union([Type.Literal('dimension'), Type.Literal('aggregate')]),
  higher_is_better: Type.Boolean(),
  baseline: Type.Number({
    description: "The baseline's mean over the clips compared (the matched pairs when paired).",
  }),
  candidate: Type.Number({ description: "The candidate's mean over the clips compared." }),
  delta: Type.Number({ description: 'candidate − baseline.' }),
  ci95_low: NullableNum(
    'Lower end of the 95 % interval of delta (paired or unpaired bootstrap over prompts); null when a clip group has one prompt.',
  ),
  ci95_high: NullableNum('Upper end of the 95 % interval of delta.'),
  p_value: Type.Number({
    description:
      'Two-sided permutation p-value of "no difference" (sign flips of prompts when paired, relabelled prompts when unpaired; exact when every pattern fits in the resamples, else (1 + hits)/(B + 1)).',
  }),
  p_adjusted: Type.Number({
    description: 'Holm-adjusted across the comparisons with the baseline (equal to p_value with two runs).',
  }),
  significant: Type.Boolean({ description: 'The interval leaves out 0 and p_adjusted < 0.05.' }),
  pairs: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Matched (prompt, sample) pairs when paired; null when unpaired.',
  }),
  baseline_clips: Type.Integer(),
  candidate_clips: Type.Integer(),
  prompts: Type.Integer({ description: 'Prompts behind the row (the resampled units).' }),
  partial: Type.Boolean({
    description: 'Aggregates: some dimension of their VBench group is not among those compared.',
  }),
});

const ClipRef = Type.Object({ sample_index: Type.Integer(), video_id: Type.String() });

const ComparePrompt = Type.Object({
  prompt_id: Type.String(),
  prompt: Type.String(),
  clip_group: Type.String(),
  delta: Type.Number({
    description:
      "The prompt's dimension deltas on the leaderboard's scale (weight/(max − min) each, averaged by weight; a lower-is-better dimension turned round): what the list is sorted by, largest drop first.",
  }),
  dimensions: Type.Array(
    Type.Object({ dimension: Type.String(), baseline: Num, candidate: Num, delta: Num }),
  ),
  baseline_clips: Type.Array(ClipRef, {
    description: "The baseline's clips of this prompt (GET /api/v1/videos/{videoId}/content plays one).",
  }),
  candidate_clips: Type.Array(ClipRef),
});

const PairComparison = Type.Object({
  baseline_id: Type.String(),
  candidate_id: Type.String(),
  mode: Type.Union([Type.Literal('paired'), Type.Literal('unpaired')], {
    description:
      'paired: both runs were planned from one prompt suite version, so clips are matched on (prompt, sample index) and the difference is taken pair by pair; unpaired: different suites, each run resampled on its own.',
  }),
  mode_reason: Type.String(),
  unmatched_clips: Type.Object(
    { baseline: Type.Integer(), candidate: Type.Integer() },
    {
      description: 'Paired: clips left out because the other run has no clip of the same prompt and sample.',
    },
  ),
  rows: Type.Array(CompareRow, {
    description: "The compared dimensions in VBench's order, then Quality, Semantic, Total.",
  }),
  prompts: Type.Array(ComparePrompt, {
    description:
      'Per prompt, largest drop first (paired: by prompt; unpaired: prompts of the same text in both runs).',
  }),
});

const CompareGate = Type.Object({
  margin: Type.Number({ description: 'DELTA, as sent.' }),
  alpha: Type.Number({ description: 'One-sided level, family-wise over the gated rows: 0.025.' }),
  verdict: Type.Union([Type.Literal('pass'), Type.Literal('regression'), Type.Literal('not_comparable')]),
  statement: Type.String(),
  rows: Type.Array(
    Type.Object({
      name: Type.String(),
      delta: Num,
      ci95_low: NullableNum('As in rows.'),
      ci95_high: NullableNum('As in rows.'),
      p_value: Type.Number({ description: 'One-sided p of "candidate − baseline ≥ −DELTA".' }),
      p_adjusted: Type.Number({ description: 'Holm-adjusted over the gated rows.' }),
      regressed: Type.Boolean({ description: 'p_adjusted < alpha.' }),
    }),
  ),
  regressions: Type.Array(Type.String()),
});

export const BenchComparison = Type.Object(
  {
    baseline_id: Type.String(),
    level: Type.Number({ description: 'Confidence level of the intervals: 0.95.' }),
    resamples: Type.Integer({ description: 'Bootstrap replicates and permutations drawn (10,000).' }),
    interval_method: Type.String(),
    correction: Type.Object({
      method: Type.Union([Type.Literal('holm'), Type.Literal('none')]),
      statement: Type.String(),
    }),
    runs: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        model_id: Type.String(),
        status: Type.String(),
        suite_version: Type.Union([Type.String(), Type.Null()]),
        clips_scored: Type.Integer(),
        clips_total: Type.Integer(),
        label: Type.String({
          description:
            '`completed`, or how far a run still going is, e.g. `evaluating: 340 of 1000 clips scored`.',
        }),
      }),
    ),
    comparable: Type.Boolean({
      description: 'False when no dimension can be compared (see not_comparable).',
    }),
    dimensions: Type.Array(Type.String(), {
      description: 'The compared dimensions: scored by every run with one and the same method version.',
    }),
    not_comparable: Type.Array(Type.Object({ dimension: Type.String(), reason: Type.String() }), {
      description:
        'Dimensions left out, with why (not scored in a run, a run mixing methods, different methods or versions).',
    }),
    comparisons: Type.Array(PairComparison, { description: 'Each candidate against the baseline.' }),
    gate: Type.Union([CompareGate, Type.Null()], {
      description: 'The regression gate, when fail_on_regression was sent.',
    }),
  },
  {
    title: 'BenchComparison',
    description:
      'Bench runs compared with the first: differences with 95 % intervals and permutation p-values, per prompt deltas, and the optional regression gate.',
  },
);

/** What every baseline operation says about whose baseline it is. */
export const BASELINE_NOTES =
  'Per user: each user sets their own. A model id the caller cannot see is 404 `not_found`, as in GET /api/v1/models.';

export const ModelIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128, description: 'A model id from GET /api/v1/models.' }) },
  { additionalProperties: false },
);

export const ModelBaseline = Type.Object(
  {
    model_id: Type.String(),
    run_id: Type.Union([Type.String(), Type.Null()], {
      description: "The caller's baseline run of the model; null when none is set.",
    }),
    set_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  {
    title: 'ModelBaseline',
    description: "A model's baseline run (the caller's): what new runs of the model are compared with.",
  },
);

export const SetModelBaselineBody = Type.Object(
  {
    run_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "A completed run of this model, of the caller's.",
    }),
  },
  { title: 'SetModelBaselineBody', additionalProperties: false },
);
