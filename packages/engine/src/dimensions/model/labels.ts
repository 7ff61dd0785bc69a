/**
 * Candidate label sets of the zero-shot CLIP substitutes. The requested label is always added as
 * the first candidate; these lists are the alternatives it must beat.
 * - SCENE_LABELS: scene categories of VBench's `scene` prompt suite (Places365 names).
 * - ACTION_LABELS: Kinetics-400 action classes (the label space of VBench's UMT classifier), a
 *   subset spanning its main groups (sports, music, household, personal care, dance).
 */
export const SCENE_LABELS: readonly string[] = [
  'alley', 'amusement park', 'aquarium', 'arch', 'art gallery', 'bathroom', 'bakery shop', 'ballroom',
  'bar', 'barn', 'basement', 'beach', 'bedroom', 'bridge', 'botanical garden', 'cafeteria', 'campsite',
  'campus', 'carrousel', 'castle', 'cemetery', 'classroom', 'cliff', 'crosswalk', 'construction site',
  'corridor', 'courtyard', 'desert', 'downtown', 'driveway', 'farm', 'food court', 'football field',
  'forest road', 'fountain', 'gas station', 'glacier', 'golf course', 'indoor gymnasium', 'harbor',
  'highway', 'hospital', 'house', 'iceberg', 'industrial area', 'jail cell', 'junkyard', 'kitchen',
  'indoor library', 'lighthouse', 'laboratory', 'mansion', 'marsh', 'mountain', 'indoor movie theater',
  'indoor museum', 'music studio', 'nursery', 'ocean', 'office', 'palace', 'parking lot', 'pharmacy',
  'phone booth', 'raceway', 'restaurant', 'river', 'science museum', 'shower', 'ski slope', 'sky',
  'skyscraper', 'baseball stadium', 'staircase', 'street', 'supermarket', 'indoor swimming pool',
  'tower', 'outdoor track', 'train railway', 'train station platform', 'underwater coral reef',
  'valley', 'volcano', 'waterfall', 'windmill',
];

export const ACTION_LABELS: readonly string[] = [
  'playing guitar', 'playing piano', 'playing violin', 'playing drums', 'playing flute', 'singing',
  'dancing ballet', 'breakdancing', 'salsa dancing', 'tap dancing', 'riding a bike', 'riding a horse',
  'skateboarding', 'surfing water', 'skiing', 'snowboarding', 'swimming breast stroke', 'diving cliff',
  'running on treadmill', 'jogging', 'walking the dog', 'playing basketball', 'playing tennis',
  'playing volleyball', 'kicking soccer ball', 'golf driving', 'bowling', 'archery', 'boxing',
  'push up', 'pull ups', 'squat', 'yoga', 'climbing a rope', 'rock climbing', 'juggling balls',
  'cooking egg', 'making pizza', 'baking cookies', 'washing dishes', 'ironing', 'mopping floor',
  'vacuuming floor', 'folding clothes', 'brushing teeth', 'shaving head', 'applying cream',
  'braiding hair', 'drinking', 'eating burger', 'eating spaghetti', 'reading book', 'writing',
  'texting', 'using computer', 'talking on cell phone', 'clapping', 'laughing', 'crying', 'hugging',
  'kissing', 'shaking hands', 'driving car', 'flying kite', 'fishing', 'gardening', 'planting trees',
  'chopping wood', 'painting fence', 'sweeping floor', 'feeding birds', 'petting cat', 'milking cow',
  'sign language interpreting', 'sled dog racing', 'sword fighting', 'tai chi', 'throwing ball',
  'water skiing', 'windsurfing',
];
