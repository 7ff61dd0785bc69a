/**
 * The services speak their own types (`domain/views/`); the HTTP layer's TypeBox schemas serialise
 * them. This module holds the two together at compile time: each entry of `ViewContracts` fails to
 * compile ("Type 'false' does not satisfy the constraint 'true'") when a schema's static type and
 * the service type it serialises differ — a field added, removed, renamed, made optional or
 * nullable on one side only. It has no run-time content.
 */
import type { Static } from 'typebox';
import type {
  Account,
  ApiKeyView,
  InviteView,
  UserView,
  WebSessionView,
} from '../../domain/views/accounts.js';
import type {
  BenchLogView,
  BenchRunView,
  BenchScorecardView,
  BenchVideoView,
  CreateBenchRunInput,
  PageOf,
} from '../../domain/views/bench.js';
import type { BenchComparisonView, ModelBaselineView } from '../../domain/views/bench-comparison.js';
import type { DimensionView, ModelView } from '../../domain/views/discovery.js';
import type {
  HeartbeatView,
  LeaseView,
  RegisterRunnerInput,
  RunnerLogLine,
  RunnerTaskView,
  RunnerView,
} from '../../domain/views/runners.js';
import type {
  AuxiliaryInfo,
  LeaderboardView,
  RankSessionView,
  ReceivedUpload,
  ScoreSessionView,
  ScoreView,
  UploadUrlInput,
  UploadUrlView,
  VideoView,
} from '../../domain/views/score-rank.js';
import type {
  Account as AccountSchema,
  ApiKey,
  Invite,
  User,
  WebSession,
} from '../routes/accounts/schemas.js';
import type {
  BenchLogLine,
  BenchLogPage,
  BenchRun,
  BenchRunPage,
  BenchScorecard,
  BenchVideo,
  BenchVideoPage,
  CreateBenchRunBody,
} from '../routes/bench/schemas.js';
import type { BenchComparison, ModelBaseline } from '../routes/bench/comparison-schemas.js';
import type { Dimension, Model } from '../routes/discovery/schemas.js';
import type {
  AddedJudgeView,
  AddJudgeInput,
  CastJudgingVoteInput,
  CreateJudgingCampaignInput,
  JudgeView,
  JudgingAgreementView,
  JudgingCampaignView,
  JudgingOfferView,
  JudgingRatingsView,
  JudgingVoteView,
  NextJudgingPairsView,
} from '../../domain/views/judging.js';
import type {
  AddedJudge,
  AddJudgeBody,
  CastJudgingVoteBody,
  CreateJudgingCampaignBody,
  Judge,
  JudgingAgreement,
  JudgingCampaign,
  JudgingOffer,
  JudgingRatings,
  JudgingVote,
  NextJudgingPairs,
} from '../routes/judging/schemas.js';
import type {
  Lease,
  HeartbeatResponse,
  RegisterRunnerBody,
  Runner,
  RunnerLogLine as RunnerLogLineSchema,
  RunnerTask,
} from '../routes/runners/schemas.js';
import type {
  Auxiliary,
  Leaderboard,
  RankSession,
  RankUploadUrlBody,
  Score,
  ScoreSession,
  UploadPutResponse,
  UploadUrlResponse,
  Video,
} from './sessions.js';

/** Objects compared field by field (deeply), so that an intersection equals the object it spells. */
type Normalised<T> = T extends readonly (infer E)[]
  ? Normalised<E>[]
  : T extends object
    ? { [K in keyof T]: Normalised<T[K]> }
    : T;

/** True when A and B are the same type (not merely assignable to each other). */
export type Same<A, B> =
  (<T>() => T extends Normalised<A> ? 1 : 2) extends <T>() => T extends Normalised<B> ? 1 : 2 ? true : false;

type Expect<T extends true> = T;

/** Every schema that serialises a service type, with that type. */
export type ViewContracts = [
  // Score and Rank
  Expect<Same<Static<typeof Auxiliary>, AuxiliaryInfo>>,
  Expect<Same<Static<typeof Score>, ScoreView>>,
  Expect<Same<Static<typeof Video>, VideoView>>,
  Expect<Same<Static<typeof ScoreSession>, ScoreSessionView>>,
  Expect<Same<Static<typeof RankSession>, RankSessionView>>,
  Expect<Same<Static<typeof RankUploadUrlBody>, UploadUrlInput>>,
  Expect<Same<Static<typeof UploadUrlResponse>, UploadUrlView>>,
  Expect<Same<Static<typeof UploadPutResponse>, ReceivedUpload>>,
  Expect<Same<Static<typeof Leaderboard>, LeaderboardView>>,
  // Bench
  Expect<Same<Static<typeof BenchRun>, BenchRunView>>,
  Expect<Same<Static<typeof BenchRunPage>, PageOf<BenchRunView>>>,
  Expect<Same<Static<typeof BenchScorecard>, BenchScorecardView>>,
  Expect<Same<Static<typeof BenchComparison>, BenchComparisonView>>,
  Expect<Same<Static<typeof ModelBaseline>, ModelBaselineView>>,
  Expect<Same<Static<typeof BenchVideo>, BenchVideoView>>,
  Expect<Same<Static<typeof BenchVideoPage>, PageOf<BenchVideoView>>>,
  Expect<Same<Static<typeof BenchLogLine>, BenchLogView>>,
  Expect<Same<Static<typeof BenchLogPage>, PageOf<BenchLogView>>>,
  Expect<Same<Static<typeof CreateBenchRunBody>, CreateBenchRunInput>>,
  // Runners
  Expect<Same<Static<typeof Runner>, RunnerView>>,
  Expect<Same<Static<typeof Lease>, LeaseView>>,
  Expect<Same<Static<typeof RunnerTask>, RunnerTaskView>>,
  Expect<Same<Static<typeof HeartbeatResponse>, HeartbeatView>>,
  Expect<Same<Static<typeof RunnerLogLineSchema>, RunnerLogLine>>,
  Expect<Same<Static<typeof RegisterRunnerBody>, RegisterRunnerInput>>,
  // Discovery
  Expect<Same<Static<typeof Dimension>, DimensionView>>,
  Expect<Same<Static<typeof Model>, ModelView>>,
  // Accounts and keys
  Expect<Same<Static<typeof AccountSchema>, Account>>,
  Expect<Same<Static<typeof WebSession>, WebSessionView>>,
  Expect<Same<Static<typeof ApiKey>, ApiKeyView>>,
  Expect<Same<Static<typeof User>, UserView>>,
  Expect<Same<Static<typeof Invite>, InviteView>>,
  // Judging
  Expect<Same<Static<typeof CreateJudgingCampaignBody>, CreateJudgingCampaignInput>>,
  Expect<Same<Static<typeof JudgingCampaign>, JudgingCampaignView>>,
  Expect<Same<Static<typeof Judge>, JudgeView>>,
  Expect<Same<Static<typeof AddJudgeBody>, AddJudgeInput>>,
  Expect<Same<Static<typeof AddedJudge>, AddedJudgeView>>,
  Expect<Same<Static<typeof JudgingOffer>, JudgingOfferView>>,
  Expect<Same<Static<typeof NextJudgingPairs>, NextJudgingPairsView>>,
  Expect<Same<Static<typeof CastJudgingVoteBody>, CastJudgingVoteInput>>,
  Expect<Same<Static<typeof JudgingVote>, JudgingVoteView>>,
  Expect<Same<Static<typeof JudgingRatings>, JudgingRatingsView>>,
  Expect<Same<Static<typeof JudgingAgreement>, JudgingAgreementView>>,
];
