/** Schemas of the discovery reads: dimensions and models. */
import { Type } from 'typebox';

export const DISCOVERY_TAG = 'Discovery';

const Method = Type.Object({
  id: Type.String({ description: '`vbench`: VBench protocol and model; `lite`: model-free.' }),
  version: Type.String(),
  description: Type.String(),
  requires: Type.Object(
    {
      models: Type.Array(Type.String(), {
        description: 'Model ids the method needs (empty for model-free methods).',
      }),
      auxiliary: Type.Array(Type.String(), {
        description:
          'Auxiliary prompt info keys it reads: object, color, relationship, scene, appearance_style, action.',
      }),
      prompt: Type.Boolean({ description: "True when it reads the clip's text prompt." }),
    },
    { description: 'What the method needs before it can run.' },
  ),
  available: Type.Boolean({ description: 'True when this server can run it now.' }),
  unavailableReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it is not available; null when it is.',
  }),
});

export const Dimension = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    category: Type.Union([Type.Literal('quality'), Type.Literal('semantic')], {
      description: 'The leaderboard group it counts in.',
    }),
    higherIsBetter: Type.Boolean(),
    range: Type.Object(
      { min: Type.Number(), max: Type.Number() },
      { description: 'Range of a per-clip value.' },
    ),
    methods: Type.Array(Method),
    defaultMethod: Type.Union([Type.String(), Type.Null()], {
      description:
        'The method used when none is chosen: the best available (vbench before lite); null when none is available (Bench runs then refuse the dimension).',
    }),
    normalisation: Type.Object(
      { min: Type.Number(), max: Type.Number(), weight: Type.Number() },
      {
        description:
          "VBench's leaderboard constants: a score x counts as weight·(x − min)/(max − min) in Quality, Semantic and Total.",
      },
    ),
    workflows: Type.Array(Type.Union([Type.Literal('score'), Type.Literal('rank'), Type.Literal('bench')]), {
      description: 'The workflows that score it; dimensions needing a prompt suite are bench only.',
    }),
  },
  { title: 'Dimension', description: 'An evaluation dimension (VBench).' },
);

export const DimensionList = Type.Object(
  { items: Type.Array(Dimension) },
  { title: 'DimensionList', description: "VBench's 16 dimensions, in VBench's order." },
);

export const Model = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    runners: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        online: Type.Boolean({ description: 'Seen in the last 60 seconds (2 × the longest claim wait).' }),
        lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      }),
      { description: "The caller's registered runners serving the model, online ones first." },
    ),
    online: Type.Boolean({ description: 'True when at least one runner serving it is online.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Model', description: 'A video generator that Bench runs can evaluate.' },
);

export const ModelList = Type.Object(
  { items: Type.Array(Model) },
  {
    title: 'ModelList',
    description:
      "The global models and the caller's private ones, by id; a fresh server lists only the demo generator `vesta-demo`.",
  },
);

export const DimensionIdParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A dimension id from GET /api/v1/dimensions.',
    }),
  },
  { additionalProperties: false },
);

export const DimensionPrompts = Type.Object(
  {
    suiteVersion: Type.String({ description: 'The prompt suite version (changes whenever a prompt does).' }),
    dimension: Type.String(),
    clipGroup: Type.String({
      description:
        'The clip group this dimension is evaluated on; dimensions of one group share clips (VBench: subject_consistency with motion_smoothness and dynamic_degree; scene with background_consistency; overall_consistency with aesthetic_quality and imaging_quality).',
    }),
    prompts: Type.Array(
      Type.Object({
        id: Type.String({ description: '`<clip group>-<nn>`, stable within a suite version.' }),
        text: Type.String(),
        auxiliary: Type.Record(Type.String(), Type.String(), {
          description:
            'What the dimension checks: object; object ("a and b") for multiple_objects; action; color (+ object); object_a, object_b, relationship; scene; appearance_style. {} when none.',
        }),
      }),
    ),
  },
  {
    title: 'DimensionPrompts',
    description: "Vesta's own prompts for one dimension (written for Vesta, not copied from VBench).",
  },
);
