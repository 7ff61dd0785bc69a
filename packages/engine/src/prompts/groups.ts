/**
 * Vesta's own prompt lists, one per clip group. Written for this project (not taken from VBench or
 * any other benchmark); each prompt carries the auxiliary info its dimensions read. Changing any
 * text or auxiliary value here means a new `PROMPT_SUITE_VERSION`.
 */
import type { DimensionId } from '../contract.js';

export interface PromptSeed {
  text: string;
  auxiliary?: Record<string, string>;
}

export interface GroupSeed {
  /** The group id: the dimension whose clips the others reuse (VBench's prompt-suite folder). */
  id: string;
  dimensions: readonly DimensionId[];
  prompts: readonly PromptSeed[];
}

const plain = (texts: readonly string[]): PromptSeed[] => texts.map((text) => ({ text }));

export const GROUP_SEEDS: readonly GroupSeed[] = [
  {
    id: 'subject_consistency',
    dimensions: ['subject_consistency', 'dynamic_degree', 'motion_smoothness'],
    prompts: plain([
      'a grey heron wading slowly through shallow reeds at dawn',
      'a golden retriever puppy chasing its own tail on a kitchen floor',
      'an old fisherman mending a net on a wooden pier',
      'a red fox trotting across a snowy clearing',
      'a cyclist in a yellow jacket riding along a coastal road',
      'a tabby cat stretching on a sunny windowsill',
      'a toddler stacking wooden blocks on a rug',
      'a sea turtle gliding over a coral reef',
      'a horse galloping along a sandy riverbank',
      'a skateboarder carving down an empty parking garage ramp',
      'a hummingbird hovering beside a purple flower',
      'a chef tossing vegetables in a smoking wok',
      'an orange koi fish circling in a stone pond',
      'a ballet dancer spinning on a dim stage',
    ]),
  },
  {
    id: 'scene',
    dimensions: ['scene', 'background_consistency'],
    prompts: [
      { text: 'a quiet public library reading room in the afternoon', auxiliary: { scene: 'library' } },
      { text: 'a busy train station platform at rush hour', auxiliary: { scene: 'train station' } },
      { text: 'a misty pine forest after the rain', auxiliary: { scene: 'forest' } },
      { text: 'a mountain lake reflecting snowy peaks', auxiliary: { scene: 'lake' } },
      { text: 'an empty indoor swimming pool lit from below', auxiliary: { scene: 'swimming pool' } },
      { text: 'a narrow cobbled alley lined with lanterns', auxiliary: { scene: 'alley' } },
      { text: 'a supermarket aisle stacked with cereal boxes', auxiliary: { scene: 'supermarket' } },
      { text: 'a windswept desert with rippled dunes', auxiliary: { scene: 'desert' } },
      { text: 'a greenhouse full of hanging ferns', auxiliary: { scene: 'greenhouse' } },
      { text: 'a bowling alley with neon lights', auxiliary: { scene: 'bowling alley' } },
      { text: 'a rocky coastline with a lighthouse', auxiliary: { scene: 'coast' } },
      { text: 'a hospital corridor with pale green walls', auxiliary: { scene: 'hospital corridor' } },
      { text: 'a vineyard on rolling hills at sunset', auxiliary: { scene: 'vineyard' } },
      { text: 'a snowy ski slope under a clear sky', auxiliary: { scene: 'ski slope' } },
    ],
  },
  {
    id: 'overall_consistency',
    dimensions: ['overall_consistency', 'aesthetic_quality', 'imaging_quality'],
    prompts: plain([
      'a paper boat drifting down a rain-filled gutter',
      'steam rising from a cup of tea beside an open book',
      'a hot air balloon floating over patchwork farmland',
      'fireflies blinking in a meadow at dusk',
      'a glass marble rolling across a wooden table',
      'a violinist playing on a rooftop at night',
      'autumn leaves swirling around a park bench',
      'a lighthouse beam sweeping across a stormy sea',
      'an astronaut planting a flag on a red dusty plain',
      'a bowl of ramen with chopsticks lifting noodles',
      'waves crashing against black volcanic rocks',
      'a city skyline with lights turning on at twilight',
      'a candle flame flickering in a dark room',
      'a child blowing dandelion seeds into the wind',
    ]),
  },
  {
    id: 'temporal_flickering',
    dimensions: ['temporal_flickering'],
    prompts: plain([
      'a still life of lemons on a blue plate',
      'an empty wooden chair in a white room',
      'a stone bridge over a calm canal',
      'a row of potted cacti on a shelf',
      'a parked vintage car on a quiet street',
      'a closed red door in a brick wall',
      'a chessboard set up for a new game',
      'a snow-covered cabin in the woods',
      'a bookshelf full of leather-bound books',
      'a bicycle leaning against a fence',
      'a lighthouse on a cliff under a cloudy sky',
      'a bowl of green apples on a kitchen counter',
    ]),
  },
  {
    id: 'object_class',
    dimensions: ['object_class'],
    prompts: [
      { text: 'an umbrella', auxiliary: { object: 'umbrella' } },
      { text: 'a giraffe', auxiliary: { object: 'giraffe' } },
      { text: 'a laptop', auxiliary: { object: 'laptop' } },
      { text: 'a sailboat', auxiliary: { object: 'boat' } },
      { text: 'a teddy bear', auxiliary: { object: 'teddy bear' } },
      { text: 'a fire hydrant', auxiliary: { object: 'fire hydrant' } },
      { text: 'a pizza', auxiliary: { object: 'pizza' } },
      { text: 'a motorcycle', auxiliary: { object: 'motorcycle' } },
      { text: 'a zebra', auxiliary: { object: 'zebra' } },
      { text: 'a clock', auxiliary: { object: 'clock' } },
      { text: 'a toaster', auxiliary: { object: 'toaster' } },
      { text: 'a kite', auxiliary: { object: 'kite' } },
    ],
  },
  {
    id: 'multiple_objects',
    dimensions: ['multiple_objects'],
    prompts: [
      { text: 'a cup and a spoon', auxiliary: { object: 'cup and spoon' } },
      { text: 'a dog and a frisbee', auxiliary: { object: 'dog and frisbee' } },
      { text: 'a bicycle and a bench', auxiliary: { object: 'bicycle and bench' } },
      { text: 'a cat and a vase', auxiliary: { object: 'cat and vase' } },
      { text: 'a horse and a truck', auxiliary: { object: 'horse and truck' } },
      { text: 'a banana and a knife', auxiliary: { object: 'banana and knife' } },
      { text: 'a bird and a clock', auxiliary: { object: 'bird and clock' } },
      { text: 'a laptop and a keyboard', auxiliary: { object: 'laptop and keyboard' } },
      { text: 'a sheep and a cow', auxiliary: { object: 'sheep and cow' } },
      { text: 'a suitcase and an umbrella', auxiliary: { object: 'suitcase and umbrella' } },
      { text: 'a bowl and a bottle', auxiliary: { object: 'bowl and bottle' } },
      { text: 'a chair and a potted plant', auxiliary: { object: 'chair and potted plant' } },
    ],
  },
  {
    id: 'human_action',
    dimensions: ['human_action'],
    prompts: [
      { text: 'a person juggling three balls', auxiliary: { action: 'juggling balls' } },
      { text: 'a person skipping rope in a gym', auxiliary: { action: 'skipping rope' } },
      { text: 'a person playing the cello', auxiliary: { action: 'playing cello' } },
      { text: 'a person kneading bread dough', auxiliary: { action: 'kneading dough' } },
      { text: 'a person climbing an indoor rock wall', auxiliary: { action: 'rock climbing' } },
      { text: 'a person shoveling snow from a driveway', auxiliary: { action: 'shoveling snow' } },
      { text: 'a person brushing their teeth', auxiliary: { action: 'brushing teeth' } },
      { text: 'a person doing push ups on a mat', auxiliary: { action: 'doing push ups' } },
      { text: 'a person painting a fence', auxiliary: { action: 'painting fence' } },
      { text: 'a person folding laundry', auxiliary: { action: 'folding clothes' } },
      { text: 'a person riding a unicycle', auxiliary: { action: 'riding unicycle' } },
      { text: 'a person ice skating on a frozen pond', auxiliary: { action: 'ice skating' } },
    ],
  },
  {
    id: 'color',
    dimensions: ['color'],
    prompts: [
      { text: 'a yellow taxi', auxiliary: { color: 'yellow', object: 'car' } },
      { text: 'a purple umbrella', auxiliary: { color: 'purple', object: 'umbrella' } },
      { text: 'a green bicycle', auxiliary: { color: 'green', object: 'bicycle' } },
      { text: 'a white teapot', auxiliary: { color: 'white', object: 'teapot' } },
      { text: 'an orange backpack', auxiliary: { color: 'orange', object: 'backpack' } },
      { text: 'a blue chair', auxiliary: { color: 'blue', object: 'chair' } },
      { text: 'a black cat', auxiliary: { color: 'black', object: 'cat' } },
      { text: 'a pink bus', auxiliary: { color: 'pink', object: 'bus' } },
      { text: 'a red vase', auxiliary: { color: 'red', object: 'vase' } },
      { text: 'a brown suitcase', auxiliary: { color: 'brown', object: 'suitcase' } },
      { text: 'a blue boat', auxiliary: { color: 'blue', object: 'boat' } },
      { text: 'a yellow kite', auxiliary: { color: 'yellow', object: 'kite' } },
    ],
  },
  {
    id: 'spatial_relationship',
    dimensions: ['spatial_relationship'],
    prompts: [
      {
        text: 'a cup on the left of a laptop, front view',
        auxiliary: { object_a: 'cup', object_b: 'laptop', relationship: 'on the left of' },
      },
      {
        text: 'a dog on the right of a bench, front view',
        auxiliary: { object_a: 'dog', object_b: 'bench', relationship: 'on the right of' },
      },
      {
        text: 'a clock on the top of a bookshelf, front view',
        auxiliary: { object_a: 'clock', object_b: 'bookshelf', relationship: 'on the top of' },
      },
      {
        text: 'a cat on the bottom of a table, front view',
        auxiliary: { object_a: 'cat', object_b: 'table', relationship: 'on the bottom of' },
      },
      {
        text: 'a bicycle on the left of a car, front view',
        auxiliary: { object_a: 'bicycle', object_b: 'car', relationship: 'on the left of' },
      },
      {
        text: 'an apple on the right of a bowl, front view',
        auxiliary: { object_a: 'apple', object_b: 'bowl', relationship: 'on the right of' },
      },
      {
        text: 'a bird on the top of a fence, front view',
        auxiliary: { object_a: 'bird', object_b: 'fence', relationship: 'on the top of' },
      },
      {
        text: 'a ball on the bottom of a chair, front view',
        auxiliary: { object_a: 'ball', object_b: 'chair', relationship: 'on the bottom of' },
      },
      {
        text: 'a bottle on the left of a bowl, front view',
        auxiliary: { object_a: 'bottle', object_b: 'bowl', relationship: 'on the left of' },
      },
      {
        text: 'a potted plant on the right of a sofa, front view',
        auxiliary: { object_a: 'potted plant', object_b: 'sofa', relationship: 'on the right of' },
      },
      {
        text: 'a lamp on the top of a desk, front view',
        auxiliary: { object_a: 'lamp', object_b: 'desk', relationship: 'on the top of' },
      },
      {
        text: 'a suitcase on the left of a bed, front view',
        auxiliary: { object_a: 'suitcase', object_b: 'bed', relationship: 'on the left of' },
      },
    ],
  },
  {
    id: 'appearance_style',
    dimensions: ['appearance_style'],
    prompts: [
      {
        text: 'a windmill turning in a field, watercolor painting',
        auxiliary: { appearance_style: 'watercolor painting' },
      },
      {
        text: 'a fox sleeping under a tree, pixel art',
        auxiliary: { appearance_style: 'pixel art' },
      },
      {
        text: 'a tram crossing a bridge, charcoal sketch',
        auxiliary: { appearance_style: 'charcoal sketch' },
      },
      {
        text: 'a lighthouse at night, oil painting',
        auxiliary: { appearance_style: 'oil painting' },
      },
      {
        text: 'a robot watering flowers, claymation',
        auxiliary: { appearance_style: 'claymation' },
      },
      {
        text: 'a market street in the rain, black and white photograph',
        auxiliary: { appearance_style: 'black and white' },
      },
      {
        text: 'a whale leaping out of the ocean, in stained glass style',
        auxiliary: { appearance_style: 'stained glass' },
      },
      {
        text: 'a girl flying a kite on a hill, in anime style',
        auxiliary: { appearance_style: 'anime' },
      },
      {
        text: 'a castle on a cliff, in low poly 3d style',
        auxiliary: { appearance_style: 'low poly' },
      },
      {
        text: 'a jazz band playing in a club, in pop art style',
        auxiliary: { appearance_style: 'pop art' },
      },
      {
        text: 'a mountain village in winter, woodblock print',
        auxiliary: { appearance_style: 'woodblock print' },
      },
      {
        text: 'a cat reading a newspaper, in comic book style',
        auxiliary: { appearance_style: 'comic book' },
      },
    ],
  },
  {
    id: 'temporal_style',
    dimensions: ['temporal_style'],
    prompts: plain([
      'a harbour full of sailboats, camera pans left',
      'a field of sunflowers, camera pans right',
      'a waterfall in a jungle, camera tilts up',
      'a spiral staircase, camera tilts down',
      'a birthday cake with candles, camera zooms in',
      'a busy crossroads seen from above, camera zooms out',
      'a red tulip opening, in slow motion',
      'clouds racing over a valley, time-lapse',
      'a dancer in a studio, camera orbits around her',
      'a forest path in autumn, camera moves forward',
      'a stack of pancakes with syrup dripping, camera pans left',
      'a rocket lifting off its pad, camera tilts up',
    ]),
  },
];
