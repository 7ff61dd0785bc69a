/** Schemas of the judging campaigns (issue #23): campaigns, judges, offered pairs, votes. */
import { Type } from 'typebox';
import type { FastifyContextConfig, FastifySchema } from 'fastify';

export const JUDGING_TAG = 'Judging';
/** The resource kind the `{id}` of a judging route names (for the ownership walker). */
export const JUDGING_RESOURCE = 'judging-campaign';

/**
 * The options of a route about one campaign (`{id}`): the ownership walker's resource kind, the
 * Judging tag, and the route's own config and schema.
 */
export function campaignRoute<S extends FastifySchema>(schema: S, config: FastifyContextConfig = {}) {
  return { config: { resource: JUDGING_RESOURCE, ...config }, schema: { tags: [JUDGING_TAG], ...schema } };
}

const Iso = (description: string) => Type.String({ format: 'date-time', description });
const NullableIso = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const CampaignIdParams = Type.Object(
  { id: Id('The judging campaign id.') },
  { additionalProperties: false },
);
export const JudgeIdParams = Type.Object(
  { id: Id('The judging campaign id.'), judgeId: Id('The judge id (from the judges listing).') },
  { additionalProperties: false },
);
export const ClipIdParams = Type.Object(
  {
    id: Id('The judging campaign id.'),
    clipId: Id("The campaign's clip id (an offer's `left.clipId` or `right.clipId`)."),
  },
  { additionalProperties: false },
);

const QuestionKind = Type.Union(
  [
    Type.Literal('overall'),
    Type.Literal('prompt_fit'),
    Type.Literal('motion'),
    Type.Literal('visual_quality'),
    Type.Literal('custom'),
  ],
  {
    description:
      'The question asked: `overall` ("Which clip is better overall for this prompt?", the default), `prompt_fit`, `motion`, `visual_quality`, or `custom` (its `text` required).',
  },
);
export const JudgingAnswerSchema = Type.Union(
  [
    Type.Literal('left'),
    Type.Literal('right'),
    Type.Literal('tie'),
    Type.Literal('both_bad'),
    Type.Literal('skip'),
  ],
  {
    description:
      "`left` or `right`: that clip is better; `tie`: equally good; `both_bad`: neither is acceptable; `skip`: the judge passes (the pair is not offered to them again and the vote does not count toward the pair's target or the ratings).",
  },
);

export const CreateJudgingCampaignBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Shown to the judges too.' }),
    question: Type.Optional(
      Type.Object(
        {
          kind: QuestionKind,
          text: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 500,
              description:
                "The question's words (required for `custom`; replaces the kind's default otherwise).",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    rankSessionId: Type.Optional(
      Id('Make the campaign from this Rank session of the caller: every two of its candidates form a pair.'),
    ),
    benchRunIds: Type.Optional(
      Type.Array(Id('A Bench run id.'), {
        minItems: 2,
        maxItems: 10,
        description:
          "Make the campaign from these runs of the caller's (2–10, one prompt suite): for each prompt, each two runs' clips of the same sample index form a pair.",
      }),
    ),
    votesPerPair: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 50,
        description:
          'Votes (answers other than skip) each pair should get; default 3. A pair that has them is offered no more.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateJudgingCampaignBody' },
);

const JudgingItem = Type.Object({
  id: Type.String({ description: 'The run id (Bench) or the candidate video id (Rank).' }),
  label: Type.String({ description: "The model and run name, or the candidate's file name." }),
  clips: Type.Integer({ description: 'Clips of the item in the campaign.' }),
});

export const JudgingCampaign = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('judge')], {
      description: 'How the caller takes part: `owner` sees everything; `judge` sees the campaign blinded.',
    }),
    isJudge: Type.Boolean({
      description:
        'The caller judges this campaign (an owner may add themselves; their votes are not blind).',
    }),
    question: Type.Object({ kind: QuestionKind, text: Type.String() }),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    votesPerPair: Type.Integer(),
    createdAt: Iso('When it was made.'),
    closedAt: NullableIso('When the owner closed it.'),
    revealedAt: NullableIso('When the owner revealed the names to the judges.'),
    namesVisible: Type.Boolean({
      description:
        'Model, run and file names are shown: always to the owner; to judges once closed or revealed.',
    }),
    source: Type.Union(
      [
        Type.Object({
          kind: Type.Union([Type.Literal('rank'), Type.Literal('bench')]),
          ids: Type.Array(Type.String(), { description: 'The Rank session id, or the Bench run ids.' }),
        }),
        Type.Null(),
      ],
      { description: 'What the campaign was made from; null for a judge until names are visible.' },
    ),
    items: Type.Union([Type.Array(JudgingItem), Type.Null()], {
      description: 'The rated items (runs or candidates); null for a judge until names are visible.',
    }),
    progress: Type.Object({
      pairs: Type.Integer(),
      pairsComplete: Type.Integer({ description: 'Pairs with their target number of votes.' }),
      clips: Type.Integer(),
      clipsDeleted: Type.Integer({
        description:
          'Clips deleted since the campaign was made: their pairs are offered no more; votes already cast stand.',
      }),
      votes: Type.Integer({ description: 'Votes cast, skips included.' }),
      judges: Type.Integer({ description: 'Judges (not removed).' }),
      yourVotes: Type.Integer({ description: "The caller's own votes." }),
    }),
  },
  { title: 'JudgingCampaign' },
);

export const JudgingCampaignList = Type.Object(
  { items: Type.Array(JudgingCampaign) },
  { title: 'JudgingCampaignList', description: 'The campaigns the caller owns or judges, newest first.' },
);

export const Judge = Type.Object(
  {
    id: Type.String(),
    pseudonym: Type.String({ description: 'What the export and the ratings name the judge (`judge-1`, …).' }),
    userName: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('invited'), Type.Literal('removed')], {
      description:
        '`invited`: an email with no account yet; it becomes `active` when that account is made (an invite accepted).',
    }),
    addedAt: Iso('When the judge was added.'),
    removedAt: NullableIso('When the owner removed them.'),
    votes: Type.Integer(),
  },
  { title: 'Judge' },
);

export const JudgeList = Type.Object({ items: Type.Array(Judge) }, { title: 'JudgeList' });

export const AddJudgeBody = Type.Object(
  {
    email: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 320,
        description: "A dashboard user's email (or one to invite).",
      }),
    ),
    userName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "An existing user's name." }),
    ),
  },
  { additionalProperties: false, title: 'AddJudgeBody' },
);

export const AddedJudge = Type.Object(
  {
    judge: Judge,
    invite: Type.Union(
      [
        Type.Object({
          url: Type.String({ description: 'The single-use invite link (shown once).' }),
          expiresAt: Iso('When the link stops working.'),
        }),
        Type.Null(),
      ],
      {
        description:
          'An invite made for an email with no account (only when the caller is an admin; otherwise an admin must invite that email, and the judge becomes active once the account exists). Null for an existing user.',
      },
    ),
  },
  { title: 'AddedJudge' },
);

const ClipRef = Type.Object({
  clipId: Type.String({ description: "The campaign's id for the clip (not its video id)." }),
  contentUrl: Type.String({
    description: 'Root-relative path of its bytes (campaign-scoped; byte ranges supported).',
  }),
});

export const JudgingOffer = Type.Object(
  {
    offerId: Type.String({ description: 'Send it back with the vote.' }),
    campaignId: Type.String(),
    question: Type.String(),
    prompt: Type.String({ description: 'The prompt both clips were made from.' }),
    left: ClipRef,
    right: ClipRef,
    offeredAt: Iso('When it was offered.'),
  },
  { title: 'JudgingOffer' },
);

export const NextPairsQuery = Type.Object(
  {
    count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description: 'How many offers to hold (1–3, default 1): the first to answer, the others to preload.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const NextJudgingPairs = Type.Object(
  {
    offers: Type.Array(JudgingOffer, {
      description: "The caller's open offers, oldest first (asking again without voting answers the same).",
    }),
    done: Type.Boolean({ description: 'Nothing is left for the caller to judge.' }),
    yourVotes: Type.Integer(),
  },
  { title: 'NextJudgingPairs' },
);

export const CastJudgingVoteBody = Type.Object(
  {
    offerId: Type.String({ minLength: 1, maxLength: 64, description: 'The offer being answered.' }),
    answer: JudgingAnswerSchema,
  },
  { additionalProperties: false, title: 'CastJudgingVoteBody' },
);

export const JudgingVote = Type.Object(
  {
    id: Type.String(),
    offerId: Type.String(),
    answer: JudgingAnswerSchema,
    createdAt: Iso('When it was recorded.'),
    yourVotes: Type.Integer(),
  },
  { title: 'JudgingVote' },
);

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
        description: '`csv` (default) or `jsonl`.',
      }),
    ),
  },
  { additionalProperties: false },
);

const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const JudgingRatings = Type.Object(
  {
    campaignId: Type.String(),
    votes: Type.Integer({
      description: 'Votes counted (every answer of the judges not removed, skips included).',
    }),
    votesExcluded: Type.Integer({ description: 'Votes of removed judges: kept, not counted.' }),
    resamples: Type.Integer({ description: 'Bootstrap replicates behind the intervals.' }),
    items: Type.Array(
      Type.Object({
        item: Type.String({ description: 'The run id (Bench) or candidate video id (Rank).' }),
        label: Type.String(),
        rating: NullableNumber(
          'Log-strength (natural log, mean 0 over the items; a difference of 1 is odds e:1); null without counted votes.',
        ),
        ci95Low: NullableNumber('95 % interval (prompt bootstrap); null where it cannot be estimated.'),
        ci95High: NullableNumber('Upper end of the interval.'),
        votes: Type.Integer(),
        wins: Type.Integer(),
        losses: Type.Integer(),
        ties: Type.Integer(),
      }),
      { description: 'Best first.' },
    ),
    winMatrix: Type.Array(
      Type.Object({
        item: Type.String(),
        opponent: Type.String(),
        wins: Type.Integer(),
        losses: Type.Integer(),
        ties: Type.Integer(),
      }),
      {
        description:
          "Every ordered pair of items that met: the item's wins, losses and ties against the opponent.",
      },
    ),
    judges: Type.Union(
      [
        Type.Array(
          Type.Object({
            judge: Type.String({ description: 'Pseudonym.' }),
            votes: Type.Integer(),
            agreement: NullableNumber(
              "Share of the judge's decided votes agreeing with the other judges' majority (or the ratings without them).",
            ),
            belowChance: Type.Boolean({
              description:
                'Agreement below ½ by a one-sided binomial test, Holm-adjusted over the judges, at 5 %.',
            }),
          }),
        ),
        Type.Null(),
      ],
      { description: 'Per judge (the owner only; null for a judge).' },
    ),
  },
  { title: 'JudgingRatings' },
);

export const JudgingAgreement = Type.Object(
  {
    campaignId: Type.String(),
    votes: Type.Integer(),
    dimensions: Type.Array(
      Type.Object({
        dimension: Type.String(),
        pairs: Type.Integer({
          description: 'Decided votes whose two clips both have a score of this dimension.',
        }),
        agreement: NullableNumber(
          'Share of them where the dimension prefers the clip people chose (equal scores ½).',
        ),
        ci95Low: NullableNumber('95 % interval over prompts.'),
        ci95High: NullableNumber('Upper end of the interval.'),
        kendallTau: NullableNumber(
          "Kendall τ-b between the dimension's per-item means and the human ratings.",
        ),
      }),
    ),
    fitted: Type.Union(
      [
        Type.Object({
          heldOutAccuracy: Type.Number({
            description: 'Share of held-out votes predicted (cross-validated over prompts).',
          }),
          bestSingleDimension: Type.String(),
          bestSingleAccuracy: Type.Number(),
          weights: Type.Record(Type.String(), Type.Number(), {
            description: 'Per dimension: weight per unit of score.',
          }),
          label: Type.String({
            description: '"fitted to this campaign": never a replacement for VBench\'s Total.',
          }),
        }),
        Type.Null(),
      ],
      { description: 'A logistic team score fitted to these votes; null with too few decided votes.' },
    ),
  },
  { title: 'JudgingAgreement' },
);
