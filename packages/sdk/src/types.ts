/**
 * Public resource types, derived from the types generated out of openapi/openapi.json
 * (`npm run generate:sdk`), so they change when the API does.
 */
import type { operations } from './generated/openapi.generated.js';

type Json<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends {
  content: { 'application/json': infer T };
}
  ? T
  : never;
type RequestJson<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** The caller's Score session. */
export type ScoreSession = Json<'getScoreSession', 200>;
/** The caller's Rank session, with its locked prompt. */
export type RankSession = Json<'getRankSession', 200>;
/** A clip in a session, with its state, scores and failures. */
export type VideoSummary = ScoreSession['videos'][number];
/** `awaiting_upload → uploaded → queued → scoring → scored | failed`. */
export type VideoState = VideoSummary['state'];
/** One dimension's score of a clip. */
export type Score = VideoSummary['scores'][number];
/** Auxiliary prompt info for semantic dimensions. */
export type Auxiliary = NonNullable<RequestJson<'createScoreUploadUrl'>['auxiliary']>;
/** Body of upload-url (Score requires `prompt`; Rank only until its prompt is locked). */
export type UploadUrlRequest = RequestJson<'createRankUploadUrl'>;
/** Result of upload-url: where and how to PUT the bytes. */
export type UploadTicket = Json<'createScoreUploadUrl', 201>;
/** Result of confirm-upload: the clip, now queued for scoring. */
export type UploadConfirmation = Json<'confirmScoreUpload', 200>;
/** The ranked leaderboard of a Rank session. */
export type RankLeaderboard = Json<'getRankLeaderboard', 200>;
/** A Bench run. */
export type BenchRun = Json<'getBenchRun', 200>;
/** A run's scorecard: per dimension and Quality/Semantic/Total, the score with its 95 % interval. */
export type BenchScorecard = Json<'getBenchScorecard', 200>;
/** Runs compared with the first: differences with intervals and p-values, per-prompt deltas, the gate. */
export type BenchComparison = Json<'compareBenchRuns', 200>;
/** A model's baseline run (the caller's). */
export type ModelBaseline = Json<'getModelBaseline', 200>;
/** A judging campaign as the caller sees it (`role` owner, or judge: blinded until revealed). */
export type JudgingCampaign = Json<'getJudgingCampaign', 200>;
/** Body of `judging.create`: a name, a question, and a Rank session or two or more Bench runs. */
export type JudgingCampaignCreate = RequestJson<'createJudgingCampaign'>;
/** A judge of a campaign (the owner's view). */
export type Judge = Json<'listJudgingJudges', 200>['items'][number];
/** A judge just added, with the invite made for an email without an account (admins). */
export type AddedJudge = Json<'addJudgingJudge', 201>;
/** The pairs offered to the calling judge. */
export type NextJudgingPairs = Json<'getNextJudgingPairs', 200>;
/** One pair offered to a judge: two clips of one prompt, left and right. */
export type JudgingOffer = NextJudgingPairs['offers'][number];
/** A judge's answer: `left`, `right`, `tie`, `both_bad` or `skip`. */
export type JudgingAnswer = RequestJson<'castJudgingVote'>['answer'];
/** A vote as recorded. */
export type JudgingVote = Json<'castJudgingVote', 201>;
/** Ratings with intervals, the win matrix and judge agreement. */
export type JudgingRatings = Json<'getJudgingRatings', 200>;
/** Agreement of each automated dimension with the judges, and the fitted team score. */
export type JudgingAgreement = Json<'getJudgingAgreement', 200>;
/** `queued → generating → evaluating → completed | failed | cancelled`. */
export type BenchStatus = BenchRun['status'];
/** One clip of a Bench run with its per-dimension results. */
export type BenchVideo = Json<'listBenchVideos', 200>['items'][number];
/** One log line of a Bench run. */
export type BenchLogLine = Json<'getBenchLogs', 200>['items'][number];
/** The dimensions listing. */
export type DimensionList = Json<'listDimensions', 200>;
/** An evaluation dimension. */
export type Dimension = DimensionList['items'][number];
/** The models listing. */
export type ModelList = Json<'listModels', 200>;
/** A model Bench runs can evaluate. */
export type Model = ModelList['items'][number];

/** Parameters of `bench.create` (camelCase; sent as the API's snake_case fields). */
export interface BenchCreateParams {
  /** A label for the run. */
  name: string;
  /** A model id from `models.list()`. */
  modelId: string;
  /** Dimension ids from `dimensions.list()`. */
  dimensions: string[];
  /** The only runner allowed to generate the clips; any runner serving the model when left out. */
  runnerId?: string;
  /** Clips generated per prompt (the server's default when left out; VBench uses 5). */
  samplesPerPrompt?: number;
  /** Prompts taken from each dimension's suite (the whole suite when left out). */
  promptsPerDimension?: number;
}

/** Options of `bench.compare`. */
export interface BenchCompareOptions {
  /** Compare only these dimensions (ids); with `failOnRegression`, gate them (and `Quality`, `Semantic`, `Total` if named). */
  dimensions?: string[];
  /**
   * DELTA ≥ 0: add the regression gate (two runs): `gate.verdict` is `regression` when a gated row is
   * worse than the baseline by more than DELTA with 97.5 % one-sided confidence (Holm over the rows).
   */
  failOnRegression?: number;
  /**
   * At most this many per-prompt rows in each comparison (the largest drops; all when left out).
   * `0` leaves them out, e.g. for a list that shows only the Total against a baseline.
   */
  promptLimit?: number;
}

/** Sent as `model_id` etc.; kept in step with the generated request type by the compiler. */
export type BenchCreateBody = RequestJson<'createBenchRun'>;

// Compile-time guard: every type above must resolve in the generated document. A renamed
// operation or response would otherwise turn it into `never` silently.
type Present<T> = [T] extends [never] ? false : true;
type AllTrue<T extends readonly boolean[]> = T extends readonly true[] ? true : false;
type Expect<T extends true> = T;
export type _GeneratedTypesResolve = Expect<
  AllTrue<
    [
      Present<ScoreSession>,
      Present<RankSession>,
      Present<UploadTicket>,
      Present<UploadConfirmation>,
      Present<UploadUrlRequest>,
      Present<Auxiliary>,
      Present<RankLeaderboard>,
      Present<BenchRun>,
      Present<BenchScorecard>,
      Present<BenchComparison>,
      Present<ModelBaseline>,
      Present<BenchVideo>,
      Present<BenchLogLine>,
      Present<DimensionList>,
      Present<ModelList>,
      Present<BenchCreateBody>,
      Present<JudgingCampaign>,
      Present<JudgingCampaignCreate>,
      Present<Judge>,
      Present<AddedJudge>,
      Present<NextJudgingPairs>,
      Present<JudgingAnswer>,
      Present<JudgingVote>,
      Present<JudgingRatings>,
      Present<JudgingAgreement>,
    ]
  >
>;
