/**
 * `npm run validate`: does Vesta order clips and models the way VBench does?
 *
 * 1. Agreement: per-model means of every quality dimension's method over the corpus clips of the
 *    generators whose VBench results are published (`validate/vbench-published.ts`), ranked
 *    against VBench's numbers (Spearman ρ, Kendall τ-b). Caveat: the corpus prompts are not
 *    VBench's, and a generator has 1–6 clips here.
 * 2. Degradations: graded blur, noise, compression, flicker, stutter, drops, freeze, palette and
 *    rescale series made with FFmpeg from real camera clips (`validate/degradations.ts`); each
 *    expected movement is checked for direction and spread.
 * 3. Invariances: the same clip in three containers, at two resolutions and two frame rates.
 * 4. Model-backed methods: the fixture ONNX models (wiring), and real weights when the model store
 *    holds them (agreement, and parity ±0.01 with VBench's per-clip values when
 *    `validate/vbench-per-clip.json` provides them).
 *
 * Runs the engine from source (what is in the tree, not a stale build), two worker threads, under
 * `nice`. Decoded results are cached in `.vesta/validate/` by file hash, dimension, method and
 * method version, so a re-run only scores what changed. `--quick` uses one degradation source;
 * `--no-cache` re-scores everything (needed
 * while a method changes without a new version number). Writes `docs/validation.md` unless
 * `--no-write`; `--save-baseline` stores the current figures as the "before" columns.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createEngine,
  createModelStore,
  defaultFfmpegPath,
  getMethod,
  MODEL_METHODS,
  modelStoreOptionsFromEnv,
} from '../packages/engine/src/index.js';
import type { DimensionId, Engine, MethodId } from '../packages/engine/src/index.js';
import { writeFixtureModelDir } from '../packages/engine/test/helpers/model-dir.js';
import {
  CUT_PARTNER,
  FORMAT_TOLERANCE,
  INVARIANCE_GROUPS,
  levelArgs,
  MIN_SPREAD,
  prepareSourceArgs,
  SERIES,
} from './validate/degradations.js';
import type { Direction } from './validate/degradations.js';
import {
  crossGroupConcordance,
  kendallTauB,
  leaveOneOutSpearman,
  spearman,
  spearmanPermutationP,
} from './validate/stats.js';
import { PUBLISHED_SOURCE, QUALITY_DIMENSIONS, VBENCH_PUBLISHED } from './validate/vbench-published.js';
import type { QualityDimension } from './validate/vbench-published.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The shared corpus: `VESTA_CORPUS_DIR`, else the first `shared/corpus` beside the checkout or one of
 * its parents (a git worktree sits deeper than the main checkout).
 */
function findCorpus(): string {
  if (process.env.VESTA_CORPUS_DIR) return process.env.VESTA_CORPUS_DIR;
  let dir = join(ROOT, '..');
  for (let i = 0; i < 4; i++) {
    const c = join(dir, 'shared', 'corpus');
    if (existsSync(join(c, 'MANIFEST.csv'))) return c;
    dir = join(dir, '..');
  }
  return join(ROOT, '..', 'shared', 'corpus');
}
const CORPUS = findCorpus();
const WORK = join(ROOT, '.vesta', 'validate');
const MEDIA = join(WORK, 'media');
const CACHE_FILE = join(WORK, 'results.json');
const BASELINE_FILE = join(ROOT, 'scripts', 'validate', 'baseline.json');
const PER_CLIP_FILE = join(ROOT, 'scripts', 'validate', 'vbench-per-clip.json');
const REPORT = join(ROOT, 'docs', 'validation.md');

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const WRITE = !argv.has('--no-write');
const SAVE_BASELINE = argv.has('--save-baseline');
/** Ignore cached scores (while a method changes without a new version number). */
const NO_CACHE = argv.has('--no-cache');
const SECTIONS = ['agreement', 'degradations', 'invariances', 'models'].filter(
  (s) => !process.argv.some((a) => a.startsWith('--only=')) || process.argv.includes(`--only=${s}`),
);

/** Real 30 fps camera clips the degradations start from (held out from the agreement set). */
const DEGRADATION_SOURCES = QUICK
  ? ['real__cotracker-bear.mp4']
  : ['real__cotracker-bear.mp4', 'real__sam2-bedroom.mp4', 'real__sam2-dog-walk.mp4'];
const INVARIANCE_SOURCE = 'real__sam2-bedroom.mp4';
/** A step against the expected direction smaller than this (a change in the fourth decimal) counts as flat. */
const STEP_SLACK = 1e-3;

/** The method each quality dimension is scored with here (model-free). */
const LITE_METHODS: Record<QualityDimension, MethodId> = {
  subject_consistency: 'lite',
  background_consistency: 'lite',
  temporal_flickering: 'vbench',
  motion_smoothness: 'lite',
  dynamic_degree: 'lite',
  aesthetic_quality: 'lite',
  imaging_quality: 'lite',
};

// --- helpers --------------------------------------------------------------------------------------

const ffmpeg = defaultFfmpegPath();

function run(args: string[]): void {
  try {
    execFileSync(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`ffmpeg ${args.join(' ')} failed: ${stderr.trim()}`);
  }
}

function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 32);
}

function made(name: string, args: (out: string) => string[]): string {
  const out = join(MEDIA, name);
  if (!existsSync(out)) {
    const tmp = out.replace(/(\.[a-z0-9]+)$/, '.part$1');
    run(args(tmp));
    execFileSync('mv', [tmp, out]);
  }
  return out;
}

const recipeKey = (args: string[]): string =>
  createHash('sha256').update(args.join('\u0000')).digest('hex').slice(0, 12);

const fmt = (x: number | undefined, d = 4): string =>
  x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d);
const signed = (x: number | undefined, d = 2): string =>
  x === undefined || !Number.isFinite(x) ? '—' : (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(d);

function table(head: string[], rows: string[][]): string {
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

// --- scoring with a cache -------------------------------------------------------------------------

type Cache = Record<string, number>;
const cache: Cache = existsSync(CACHE_FILE) ? (JSON.parse(readFileSync(CACHE_FILE, 'utf8')) as Cache) : {};
const hashes = new Map<string, string>();

function versionOf(dim: DimensionId, method: MethodId): string {
  const m = getMethod(dim, method);
  if (!m) throw new Error(`no method ${method} for ${dim}`);
  return m.version;
}

type Scores = Partial<Record<QualityDimension, number>>;

async function score(
  engine: Engine,
  path: string,
  methods: Partial<Record<QualityDimension, MethodId>> = LITE_METHODS,
  useCache = true,
): Promise<Scores> {
  let h = hashes.get(path);
  if (!h) hashes.set(path, (h = fileHash(path)));
  const keyOf = (d: QualityDimension): string => `${h}:${d}:${methods[d]}:${versionOf(d, methods[d]!)}`;
  const dims = Object.keys(methods) as QualityDimension[];
  const missing = useCache && !NO_CACHE ? dims.filter((d) => cache[keyOf(d)] === undefined) : dims;
  const out: Scores = {};
  if (missing.length > 0) {
    const r = await engine.evaluate(path, {
      dimensions: missing,
      methods: Object.fromEntries(missing.map((d) => [d, methods[d]!])),
    });
    for (const f of r.failures)
      console.error(`  ${basename(path)}: ${f.dimension} failed (${f.code}) ${f.detail}`);
    for (const s of r.scores) {
      const d = s.dimension as QualityDimension;
      out[d] = s.value;
      if (useCache) cache[keyOf(d)] = s.value;
    }
    if (useCache) writeFileSync(CACHE_FILE, JSON.stringify(cache));
  }
  for (const d of dims) if (out[d] === undefined && cache[keyOf(d)] !== undefined) out[d] = cache[keyOf(d)];
  return out;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

// --- baseline -------------------------------------------------------------------------------------

interface Baseline {
  date: string;
  versions: Record<string, string>;
  agreement: Record<
    string,
    {
      spearman: number;
      kendall: number;
      means: Record<string, number>;
      /** Per-clip values by corpus file name (the clip-pair "before" column; absent in old files). */
      clips?: Record<string, number>;
    }
  >;
  degradations: Record<string, Record<string, number[]>>;
}
const baseline: Baseline | null = existsSync(BASELINE_FILE)
  ? (JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline)
  : null;
const current: Baseline = {
  date: new Date().toISOString().slice(0, 10),
  versions: Object.fromEntries(
    QUALITY_DIMENSIONS.map((d) => [d, `${LITE_METHODS[d]} v${versionOf(d, LITE_METHODS[d])}`]),
  ),
  agreement: {},
  degradations: {},
};

// --- 1. agreement ---------------------------------------------------------------------------------

interface Clip {
  file: string;
  path: string;
  prefix: string;
}

function corpusClips(): Clip[] {
  const files = readFileSync(join(CORPUS, 'MANIFEST.csv'), 'utf8')
    .split(/\r?\n/)
    .slice(1)
    .map((l) => l.split(',')[0]!)
    .filter((f) => f);
  return files.map((file) => ({ file, path: join(CORPUS, file), prefix: file.split('__')[0]! }));
}

async function agreement(engine: Engine): Promise<string> {
  const clips = corpusClips().filter((c) => VBENCH_PUBLISHED.some((m) => m.corpusPrefix === c.prefix));
  console.log(`agreement: ${clips.length} clips of ${VBENCH_PUBLISHED.length} generators`);
  const perClip = await mapLimit(clips, 2, async (c) => ({ clip: c, s: await score(engine, c.path) }));
  const models = VBENCH_PUBLISHED.map((m) => {
    const mine = perClip.filter((p) => p.clip.prefix === m.corpusPrefix);
    const means: Scores = {};
    for (const d of QUALITY_DIMENSIONS) {
      const xs = mine.map((p) => p.s[d]).filter((x): x is number => x !== undefined);
      means[d] = xs.reduce((a, b) => a + b, 0) / xs.length;
    }
    return { m, n: mine.length, means };
  });
  const rows: string[][] = [];
  for (const d of QUALITY_DIMENSIONS) {
    const ours = models.map((x) => x.means[d]!);
    const theirs = models.map((x) => x.m.values[d]);
    const rho = spearman(ours, theirs);
    const tau = kendallTauB(ours, theirs);
    current.agreement[d] = {
      spearman: rho,
      kendall: tau,
      means: Object.fromEntries(models.map((x) => [x.m.corpusPrefix, x.means[d]!])),
      clips: Object.fromEntries(
        perClip.filter((p) => p.s[d] !== undefined).map((p) => [p.clip.file, p.s[d]!]),
      ),
    };
    const before = baseline?.agreement[d];
    rows.push([
      d,
      current.versions[d]!,
      signed(rho),
      signed(tau),
      before ? `${signed(before.spearman)} / ${signed(before.kendall)} (${baseline.versions[d]})` : '—',
    ]);
  }
  const meansTable = table(
    ['generator (clips)', 'VBench name', ...QUALITY_DIMENSIONS.map((d) => d.replace(/_/g, ' '))],
    models.map((x) => [
      `${x.m.corpusPrefix} (${x.n})`,
      x.m.vbenchName,
      ...QUALITY_DIMENSIONS.map((d) => `${fmt(x.means[d], 3)} / ${x.m.values[d].toFixed(2)}`),
    ]),
  );
  const robustness = robustnessTable(perClip, models);
  return [
    '## 1. Agreement with VBench’s published per-model results',
    '',
    `Published values: ${PUBLISHED_SOURCE} (stored with their provenance in ` +
      '`scripts/validate/vbench-published.ts`). Generators with corpus clips but no published value ' +
      '(ZeroScope v2, Open-Sora 1.0, Open-Sora-Plan v0, AnimateDiff v1) are left out.',
    '',
    '**Caveat:** the corpus clips were not generated from VBench’s prompts, and each generator has',
    'only 1–6 clips (VBench averages hundreds), some of them palette-quantised README GIFs. With 7',
    'generators a Spearman ρ must exceed about ±0.79 to be significant at 5 %; read these as a',
    'coarse check of ordering, not a measurement of it.',
    '',
    table(['dimension', 'method', 'Spearman ρ', 'Kendall τ-b', 'before (ρ / τ, version)'], rows),
    '',
    'Per-generator means (Vesta / VBench %):',
    '',
    meansTable,
    '',
    robustness,
  ].join('\n');
}

/** The prompts that Show-1's comparison page rendered with every one of its four models. */
const SAME_PROMPT_PREFIXES = ['show-1', 'modelscope-t2v', 'runway-gen2', 'zeroscope-v2'];

/**
 * §1b: how much the rank agreement rests on single generators and on the choice of clips, and a
 * check on pairs of clips made from the same prompt (content held fixed).
 */
function robustnessTable(
  perClip: Array<{ clip: Clip; s: Scores }>,
  models: Array<{ m: (typeof VBENCH_PUBLISHED)[number]; means: Scores }>,
): string {
  const published = new Map(VBENCH_PUBLISHED.map((m) => [m.corpusPrefix, m]));
  const rows: string[][] = [];
  const swaps: string[] = [];
  for (const d of QUALITY_DIMENSIONS) {
    const ours = models.map((x) => x.means[d]!);
    const theirs = models.map((x) => x.m.values[d]);
    const p = spearmanPermutationP(ours, theirs);
    const loo = leaveOneOutSpearman(ours, theirs);
    const sorted = [...loo].filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    const worst = loo.indexOf(sorted[0]!);
    const best = loo.indexOf(sorted[sorted.length - 1]!);
    const before = baseline?.agreement[d]?.means;
    const looBefore = before
      ? leaveOneOutSpearman(
          models.map((x) => before[x.m.corpusPrefix] ?? NaN),
          theirs,
        ).filter((x) => !Number.isNaN(x))
      : [];
    const reference = new Map(VBENCH_PUBLISHED.map((m) => [m.corpusPrefix, m.values[d]]));
    const clips = perClip
      .filter((c) => c.s[d] !== undefined)
      .map((c) => ({
        group: c.clip.prefix,
        value: c.s[d]!,
        block: c.clip.file.split('__')[1],
        file: c.clip.file,
      }));
    const all = crossGroupConcordance(
      clips.map(({ group, value }) => ({ group, value })),
      reference,
    );
    const samePrompt = crossGroupConcordance(
      clips
        .filter((c) => SAME_PROMPT_PREFIXES.includes(c.group) && published.has(c.group))
        .map(({ group, value, block }) => ({ group, value, block })),
      reference,
    );
    // The same share over the baseline's per-clip values, for the clips measured now.
    const clipsBefore = baseline?.agreement[d]?.clips;
    const allBefore = clipsBefore
      ? crossGroupConcordance(
          clips
            .filter((c) => clipsBefore[c.file] !== undefined)
            .map((c) => ({ group: c.group, value: clipsBefore[c.file]! })),
          reference,
        )
      : undefined;
    // Generator pairs ordered against VBench: the published gap, and how the clips of the two
    // generators compare one by one (pairs ordered like VBench / all pairs).
    const pairs: string[] = [];
    for (let i = 0; i < models.length; i++) {
      for (let j = i + 1; j < models.length; j++) {
        const a = models[i]!;
        const b = models[j]!;
        const gap = a.m.values[d] - b.m.values[d];
        if (gap === 0 || Math.sign(a.means[d]! - b.means[d]!) !== -Math.sign(gap)) continue;
        const c = crossGroupConcordance(
          clips
            .filter((x) => x.group === a.m.corpusPrefix || x.group === b.m.corpusPrefix)
            .map(({ group, value }) => ({ group, value })),
          reference,
        );
        const [hi, lo] = gap > 0 ? [a, b] : [b, a];
        pairs.push(
          `${hi.m.vbenchName} > ${lo.m.vbenchName} (VBench +${Math.abs(gap).toFixed(2)}; ` +
            `${fmt(hi.means[d], 3)} vs ${fmt(lo.means[d], 3)} here; clips ${Math.round(c.share * c.pairs)}/${c.pairs})`,
        );
      }
    }
    swaps.push(`- **${d}** (${pairs.length} of 21 pairs): ${pairs.length ? pairs.join('; ') : 'none'}.`);
    const fmtLoo = (xs: number[]): string =>
      xs.length ? `${signed(Math.min(...xs))} … ${signed(Math.max(...xs))}` : '—';
    rows.push([
      d,
      signed(spearman(ours, theirs)),
      p.toFixed(3),
      `${fmtLoo(sorted)} (lowest without ${models[worst]!.m.vbenchName}, highest without ${models[best]!.m.vbenchName})`,
      fmtLoo(looBefore),
      `${(100 * all.share).toFixed(0)} % of ${all.pairs}`,
      allBefore ? `${(100 * allBefore.share).toFixed(0)} % of ${allBefore.pairs}` : '—',
      `${(100 * samePrompt.share).toFixed(0)} % of ${samePrompt.pairs}`,
    ]);
  }
  return [
    '### 1b. How much of the agreement rests on one generator or on the choice of clips',
    '',
    'The methods were designed on the degradation sweeps (§2) and on the published protocols, then',
    'measured here; these checks ask whether a ρ is carried by a single generator or by which clips',
    'happen to represent it. **p**: exact one-sided permutation p-value of ρ (the share of the 7! = 5040',
    'orderings that agree at least as well). **Leave one out**: ρ over the six generators left when',
    'each one is removed in turn (range; "before" the same for the stored baseline means). **Clip',
    'pairs**: over every pair of clips from two generators with different published values, the share',
    'ordered like VBench orders the generators (a tie counts half); 50 % is chance ("before": the same',
    'pairs with the baseline’s per-clip values). **Same prompt**:',
    "the same restricted to Show-1's comparison page, where Show-1, ModelScope and Gen-2 rendered the",
    'same five prompts (ZeroScope, also there, has no published value), so content is held fixed and',
    'only the generators differ.',
    '',
    table(
      [
        'dimension',
        'ρ',
        'p',
        'leave one out (now)',
        'leave one out (before)',
        'clip pairs',
        'clip pairs (before)',
        'same prompt',
      ],
      rows,
    ),
    '',
    'Generator pairs ordered against VBench, with the published gap (points), the two means here and',
    'how many of the cross pairs of their clips are ordered like VBench. Where the clips split, or the',
    'published gap is a fraction of a point, the swap says more about which clips the corpus holds',
    'than about the method.',
    '',
    ...swaps,
  ].join('\n');
}

// --- 2. degradations ------------------------------------------------------------------------------

function sourceFor(file: string): string {
  const src = join(CORPUS, file);
  return made(`src-${basename(file).replace(/\.[a-z0-9]+$/, '')}.mp4`, (out) => prepareSourceArgs(src, out));
}

/** `floor`: a smaller spread that suffices for this clip (`referenceFloor`). */
function judge(values: number[], dir: Direction, floor = Infinity): { ok: boolean; spread: number } {
  const spread = values[values.length - 1]! - values[0]!;
  let monotone = true;
  for (let i = 1; i < values.length; i++) {
    const step = values[i]! - values[i - 1]!;
    if (dir === 'up' ? step < -STEP_SLACK : step > STEP_SLACK) monotone = false;
  }
  // A value that rises cannot pass 1: there the spread must cover half the headroom (or MIN_SPREAD).
  const need = dir === 'up' ? Math.min(MIN_SPREAD, 0.5 * (1 - values[0]!)) : Math.min(MIN_SPREAD, floor);
  const enough = dir === 'down-or-flat' ? true : dir === 'up' ? spread >= need : -spread >= need;
  return { ok: monotone && enough, spread };
}

/** The spread a pixel-exact reference would show for a motion series (`Series.reference`), else ∞. */
function referenceFloor(series: (typeof SERIES)[number], levels: Scores[], d: QualityDimension): number {
  const tf = levels[0]?.temporal_flickering;
  if (!series.reference || d !== 'motion_smoothness' || tf === undefined) return Infinity;
  return series.reference * (1 - tf);
}

async function degradations(engine: Engine): Promise<{ text: string; failed: string[] }> {
  const failed: string[] = [];
  const sections: string[] = [];
  const summary: string[][] = [];
  for (const series of SERIES) {
    const perSource: Record<string, Scores[]> = {};
    for (const file of DEGRADATION_SOURCES) {
      const src = sourceFor(file);
      const tag = basename(src, '.mp4');
      const paths = series.levels.map((l) => {
        const key = recipeKey(l.args);
        const partner = l.partner ? sourceFor(CUT_PARTNER) : undefined;
        return made(`${tag}-${series.id}-${key}.${l.ext}`, (out) => levelArgs(src, l, out, partner));
      });
      console.log(`degradations: ${series.id} on ${file}`);
      perSource[file] = await mapLimit(paths, 2, (p) => score(engine, p));
    }
    const rows: string[][] = [];
    for (const d of QUALITY_DIMENSIONS) {
      const expected = series.expect[d];
      for (const file of DEGRADATION_SOURCES) {
        const values = perSource[file]!.map((s) => s[d] ?? NaN);
        const key = `${series.id}:${file}`;
        (current.degradations[key] ??= {})[d] = values;
        let verdict = '';
        if (expected) {
          const { ok } = judge(values, expected, referenceFloor(series, perSource[file]!, d));
          verdict = `${ok ? 'pass' : '**FAIL**'} (${expected})`;
          if (!ok) failed.push(`${series.id} / ${d} / ${file}`);
        }
        const before = baseline?.degradations[key]?.[d];
        rows.push([
          d,
          file.replace(/^real__/, '').replace(/\.[a-z0-9]+$/, ''),
          ...values.map((v) => fmt(v)),
          signed(values[values.length - 1]! - values[0]!, 4),
          verdict,
          before ? `${before.map((v) => fmt(v)).join(' → ')}` : '',
        ]);
      }
    }
    for (const [d, tol] of Object.entries(series.robust ?? {}) as Array<[QualityDimension, number]>) {
      const deltas = DEGRADATION_SOURCES.map((f) => {
        const v = current.degradations[`${series.id}:${f}`]![d]!;
        return v[1]! - v[0]!;
      });
      const ok = deltas.every((x) => Math.abs(x) <= tol);
      if (!ok) failed.push(`${series.id} / ${d} / L1 − L0 within ${tol}`);
      const before = baseline
        ? DEGRADATION_SOURCES.map((f) => {
            const v = baseline.degradations[`${series.id}:${f}`]?.[d];
            return v ? signed(v[1]! - v[0]!, 4) : '—';
          }).join(', ')
        : '';
      summary.push([
        series.id,
        d,
        `|L1 − L0| ≤ ${tol}`,
        deltas.map((x) => signed(x, 4)).join(', '),
        ok ? 'pass' : '**FAIL**',
        before,
      ]);
    }
    for (const [d, dir] of Object.entries(series.expect) as Array<[QualityDimension, Direction]>) {
      const oks = DEGRADATION_SOURCES.map((f) =>
        judge(current.degradations[`${series.id}:${f}`]![d]!, dir, referenceFloor(series, perSource[f]!, d)),
      );
      const spreads = oks.map((o) => o.spread);
      const before = baseline
        ? DEGRADATION_SOURCES.map((f) => {
            const v = baseline.degradations[`${series.id}:${f}`]?.[d];
            if (!v) return '—';
            const tf = baseline.degradations[`${series.id}:${f}`]?.temporal_flickering?.[0];
            const floor =
              series.reference && d === 'motion_smoothness' && tf !== undefined
                ? series.reference * (1 - tf)
                : Infinity;
            return `${signed(v[v.length - 1]! - v[0]!, 4)} ${judge(v, dir, floor).ok ? 'pass' : 'fail'}`;
          }).join(', ')
        : '';
      summary.push([
        series.id,
        d,
        dir,
        spreads.map((s) => signed(s, 4)).join(', '),
        oks.every((o) => o.ok) ? 'pass' : '**FAIL**',
        before,
      ]);
    }
    sections.push(
      [
        `### ${series.title}`,
        '',
        table(
          ['dimension', 'source', ...series.levels.map((l) => l.label), 'L3 − L0', 'expected', 'before'],
          rows,
        ),
      ].join('\n'),
    );
  }
  // Relational checks (`Series.lessThan`): this series' loss at level 3 against another's at a level.
  const relations: string[][] = [];
  for (const series of SERIES) {
    for (const [d, rel] of Object.entries(series.lessThan ?? {}) as Array<
      [QualityDimension, { than: string; level: number; enforced: boolean; note?: string }]
    >) {
      const other = SERIES.find((x) => x.id === rel.than);
      if (!other) throw new Error(`series ${series.id}: no series ${rel.than}`);
      const cells = DEGRADATION_SOURCES.map((f) => {
        const mine = current.degradations[`${series.id}:${f}`]![d]!;
        const theirs = current.degradations[`${other.id}:${f}`]![d]!;
        const a = mine[0]! - mine[mine.length - 1]!;
        const b = theirs[0]! - theirs[rel.level]!;
        return { a, b, ok: a < b };
      });
      const ok = cells.every((c) => c.ok);
      if (!ok && rel.enforced) failed.push(`${series.id} L3 loss < ${other.id} L${rel.level} loss / ${d}`);
      relations.push([
        d,
        `loss at ${series.id} L3 < loss at ${other.id} L${rel.level}`,
        cells.map((c) => `${fmt(c.a)} vs ${fmt(c.b)} (${(c.a / c.b).toFixed(2)})`).join('; '),
        rel.enforced
          ? ok
            ? 'pass'
            : '**FAIL**'
          : `${ok ? 'holds' : 'does not hold'} (reported only${rel.note ? `: ${rel.note}` : ''})`,
      ]);
    }
  }
  const text = [
    '## 2. Graded degradations',
    '',
    `Sources: the first ${3} s of ${DEGRADATION_SOURCES.map((f) => `\`${f}\``).join(', ')}, scaled to 640 px wide at 30 fps.`,
    'These real camera clips are not in the agreement set, so choices made on the sweeps are judged',
    `on held-out generator clips. A series passes for a dimension when every step moves the expected way`,
    `(a step the other way smaller than ${STEP_SLACK}, a change in the fourth decimal, counts as flat) and level 3`,
    `differs from level 0 by at least ${MIN_SPREAD} in that direction — for "up", at least half the headroom`,
    '1 − L0 when that is smaller (a value cannot pass 1); no spread is required for "down-or-flat", used',
    'where the value is binary or where a level may legitimately leave it unchanged. The motion series',
    '(stutter, drops, freeze) move a clip in proportion to how much it moves: `sam2-dog-walk` (a',
    'mostly fixed camera) changes least. For stutter and drops the spread required of motion',
    "smoothness is therefore min(0.01, r·(1 − TF₀)), where 1 − TF₀ is the clean clip's mean frame-to-frame",
    "change on VBench's scale (its exact temporal_flickering) and r what a pixel-exact constant-velocity",
    'interpolator loses at level 3 in units of it (stutter to 5 fps: one odd frame in three is 3 frames',
    'of motion off the midpoint, r = 1; one frame in 3 dropped: every odd frame is ½ frame off, r = ½).',
    'The palette series (ordered Bayer dither, and Floyd–Steinberg error diffusion as Python tools write',
    'README GIFs) bound H.264 → 256-colour GIF (a format change) by |L1 − L0| ≤ 0.1 for imaging and',
    `aesthetic quality and by ${FORMAT_TOLERANCE} (the smallest spread counted as a degradation's effect) for the two consistency dimensions.`,
    'The scene-cut series splices the prepared first seconds of `' + CUT_PARTNER + '` (another real',
    'clip, not a source and not in the agreement set) onto each source. Relational checks compare two',
    'series: a camera pan keeps the scene, so its loss (L0 − L3) must be smaller than the loss of a',
    'cut that replaces the last quarter of the clip with another scene (loss ratio in brackets).',
    '',
    table(['dimension', 'relation', 'per source: pan loss vs cut loss (ratio)', 'verdict'], relations),
    '',
    table(
      [
        'series',
        'dimension',
        'expected',
        'L3 − L0 per source',
        'verdict',
        `before (${baseline ? 'baseline' : '—'})`,
      ],
      summary,
    ),
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
  return { text, failed };
}

// --- 3. invariances -------------------------------------------------------------------------------

async function invariances(engine: Engine): Promise<{ text: string; failed: string[] }> {
  const failed: string[] = [];
  const src = sourceFor(INVARIANCE_SOURCE);
  const tag = basename(src, '.mp4');
  const blocks: string[] = [];
  for (const group of INVARIANCE_GROUPS) {
    // The container group copies one encoded stream; the others re-encode from the source.
    const base =
      group.id === 'container'
        ? made(`${tag}-inv-base.mp4`, (out) => [
            ...['-hide_banner', '-loglevel', 'error', '-y'],
            '-i',
            src,
            '-c',
            'copy',
            out,
          ])
        : src;
    const paths = group.variants.map((v) =>
      made(`${tag}-inv-${group.id}-${v.id}-${recipeKey(v.args)}.${v.ext}`, (out) => [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-i',
        base,
        ...v.args,
        out,
      ]),
    );
    console.log(`invariances: ${group.id}`);
    const scores = await mapLimit(paths, 2, (p) => score(engine, p));
    const rows = QUALITY_DIMENSIONS.map((d) => {
      const vals = scores.map((s) => s[d] ?? NaN);
      const diff = Math.max(...vals) - Math.min(...vals);
      const tol = group.tolerance[d];
      let verdict = 'reported only';
      if (tol !== undefined) {
        const ok = diff <= tol + 1e-12;
        verdict = `${ok ? 'pass' : '**FAIL**'} (≤ ${tol})`;
        if (!ok) failed.push(`${group.id} / ${d}`);
      }
      return [d, ...vals.map((v) => fmt(v)), fmt(diff), verdict];
    });
    blocks.push(
      [
        `### ${group.title}`,
        '',
        table(['dimension', ...group.variants.map((v) => v.label), 'max |Δ|', 'tolerance'], rows),
      ].join('\n'),
    );
  }
  const text = [
    '## 3. Invariances',
    '',
    `Source: \`${INVARIANCE_SOURCE}\` prepared as above. Containers must give identical values (the`,
    'decoded frames are the same). Across resolutions and frame rates the frame-level dimensions must',
    'stay within the stated tolerance; motion smoothness and temporal flickering measure change per',
    'frame interval, which a frame rate or a resolution change alters by definition, so they are',
    'reported only. dynamic_degree samples at about 8 fps (interval round(fps/8)), so 30 and 15 fps',
    'see the same frames and must agree exactly.',
    '',
    ...blocks.flatMap((b) => [b, '']),
  ].join('\n');
  return { text, failed };
}

// --- 4. model-backed methods ----------------------------------------------------------------------

const QUALITY_MODEL_METHODS = MODEL_METHODS.filter((m) =>
  (QUALITY_DIMENSIONS as readonly string[]).includes(m.dimension),
);

async function models(): Promise<{ text: string; failed: string[] }> {
  const failed: string[] = [];
  const lines: string[] = ['## 4. Model-backed methods', ''];
  // a) fixture models: the wiring (decode → preprocess → onnxruntime → formula) on a real clip.
  const dir = join(WORK, 'fixture-models');
  const manifest = writeFixtureModelDir(join(dir, 'local'));
  const store = createModelStore({
    cacheDir: join(dir, 'cache'),
    localDir: join(dir, 'local'),
    offline: true,
    manifest,
  });
  const engine = createEngine({
    models: store,
    threads: Math.min(2, availableParallelism()),
    inference: { batchSize: 4 },
  });
  const clip = join(CORPUS, 'show-1__blue-tiger-butterflies.mp4');
  try {
    const methods = Object.fromEntries(QUALITY_MODEL_METHODS.map((m) => [m.dimension, m.id])) as Partial<
      Record<QualityDimension, MethodId>
    >;
    const r = await engine.evaluate(clip, { dimensions: Object.keys(methods) as DimensionId[], methods });
    const rows = QUALITY_MODEL_METHODS.map((m) => {
      const s = r.scores.find((x) => x.dimension === m.dimension);
      const f = r.failures.find((x) => x.dimension === m.dimension);
      const ok = s !== undefined && Number.isFinite(s.value) && s.method === m.id && s.models.length > 0;
      if (!ok) failed.push(`fixture wiring / ${m.dimension}`);
      return [
        m.dimension,
        `${m.id} v${m.version}`,
        s ? s.models.map((x) => x.id).join(', ') : '—',
        s ? fmt(s.value) : `failed: ${f?.code ?? '?'}`,
        s ? String(s.frames.count) : '—',
        ok ? 'pass' : '**FAIL**',
      ];
    });
    lines.push(
      '### Fixture models (wiring)',
      '',
      'The tiny ONNX models the tests write (`packages/engine/src/testing`), laid out as a local model',
      'directory with a manifest pinning them, scored on `show-1__blue-tiger-butterflies.mp4`. The values',
      'are meaningless (random weights); the check is that each model-backed method decodes, preprocesses,',
      'runs onnxruntime, applies its formula and reports its models.',
      '',
      table(['dimension', 'method', 'models', 'value', 'frames', 'wiring'], rows),
      '',
    );
  } finally {
    await engine.close();
  }
  // b) real weights, when the configured store holds them.
  const real = createModelStore(modelStoreOptionsFromEnv(process.env, { offline: true }));
  const present = QUALITY_MODEL_METHODS.filter((m) => m.models.every((id) => real.isAvailableSync(id)));
  lines.push('### Real weights', '');
  if (present.length === 0) {
    lines.push(
      `Not run: the model store (\`${real.cacheDir}\`, local directory from VESTA_MODELS_LOCAL_DIR if set) holds none`,
      'of the models of the quality dimensions here. With weights installed (`vesta models pull --all`),',
      'this section scores the agreement clips with every model-backed method and ranks them as in §1;',
      'with `scripts/validate/vbench-per-clip.json` (`{ "<corpus file>": { "<dimension>": value } }`,',
      'values from running VBench on the corpus clips) it also checks per-clip parity within ±0.01.',
      '',
    );
    return { text: lines.join('\n'), failed };
  }
  const engine2 = createEngine({ models: real, threads: Math.min(2, availableParallelism()) });
  try {
    const methods = Object.fromEntries(present.map((m) => [m.dimension, m.id])) as Partial<
      Record<QualityDimension, MethodId>
    >;
    const clips = corpusClips().filter((c) => VBENCH_PUBLISHED.some((m) => m.corpusPrefix === c.prefix));
    const perClip = await mapLimit(clips, 1, async (c) => ({
      clip: c,
      s: await score(engine2, c.path, methods),
    }));
    const rows: string[][] = [];
    for (const m of present) {
      const d = m.dimension as QualityDimension;
      const means = VBENCH_PUBLISHED.map((p) => {
        const xs = perClip.filter((x) => x.clip.prefix === p.corpusPrefix).map((x) => x.s[d]!);
        return xs.reduce((a, b) => a + b, 0) / xs.length;
      });
      const theirs = VBENCH_PUBLISHED.map((p) => p.values[d]);
      rows.push([
        d,
        `${m.id} v${m.version}`,
        signed(spearman(means, theirs)),
        signed(kendallTauB(means, theirs)),
      ]);
    }
    lines.push(table(['dimension', 'method', 'Spearman ρ', 'Kendall τ-b'], rows), '');
    if (existsSync(PER_CLIP_FILE)) {
      const ref = JSON.parse(readFileSync(PER_CLIP_FILE, 'utf8')) as Record<string, Record<string, number>>;
      const parity: string[][] = [];
      for (const { clip, s } of perClip) {
        for (const [d, v] of Object.entries(ref[clip.file] ?? {})) {
          const ours = s[d as QualityDimension];
          if (ours === undefined) continue;
          const ok = Math.abs(ours - v) <= 0.01;
          if (!ok) failed.push(`parity / ${clip.file} / ${d}`);
          parity.push([clip.file, d, fmt(ours), fmt(v), fmt(ours - v), ok ? 'pass' : '**FAIL**']);
        }
      }
      lines.push(
        'Per-clip parity with VBench (±0.01):',
        '',
        table(['clip', 'dimension', 'Vesta', 'VBench', 'Δ', 'verdict'], parity),
        '',
      );
    } else {
      lines.push('No `scripts/validate/vbench-per-clip.json`: per-clip parity not checked.', '');
    }
  } finally {
    await engine2.close();
  }
  return { text: lines.join('\n'), failed };
}

// --- main -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  mkdirSync(MEDIA, { recursive: true });
  const started = Date.now();
  const engine = createEngine({ threads: Math.min(2, availableParallelism()) });
  const parts: string[] = [];
  const failed: string[] = [];
  try {
    if (SECTIONS.includes('agreement')) parts.push(await agreement(engine));
    if (SECTIONS.includes('degradations')) {
      const r = await degradations(engine);
      parts.push(r.text);
      failed.push(...r.failed);
    }
    if (SECTIONS.includes('invariances')) {
      const r = await invariances(engine);
      parts.push(r.text);
      failed.push(...r.failed);
    }
  } finally {
    await engine.close();
  }
  if (SECTIONS.includes('models')) {
    const r = await models();
    parts.push(r.text);
    failed.push(...r.failed);
  }
  const command = `npm run validate${QUICK ? ' -- --quick' : ''}`;
  const header = [
    '# Validation: do the scores order clips the way VBench does?',
    '',
    `Generated by \`${command}\` on ${current.date} (${((Date.now() - started) / 1000).toFixed(0)} s with the`,
    'cache in `.vesta/validate/`; `--no-cache` decodes and scores everything again: 3 min 56 s on the',
    'shared 2-core development machine on 2026-11-26, load average 4–6, with the degradation clips',
    'already made, including the pan, cut and error-diffusion series added that day; 3 min 32 s',
    'before them, at load 5–7). Re-run it after changing a method: results are cached by file hash, dimension,',
    'method and method version.',
    '',
    `Methods: ${QUALITY_DIMENSIONS.map((d) => `${d} ${current.versions[d]}`).join(', ')}.`,
    baseline
      ? `"Before" columns: the figures stored in \`scripts/validate/baseline.json\` (${baseline.date}; ${Object.entries(
          baseline.versions,
        )
          .map(([d, v]) => `${d} ${v}`)
          .join(', ')}).`
      : 'No baseline stored.',
    '',
    failed.length ? `**Failing checks (${failed.length}):** ${failed.join('; ')}.` : '**All checks pass.**',
    '',
  ].join('\n');
  const report = `${header}\n${parts.join('\n\n')}\n`;
  console.log(`\n${report}`);
  if (WRITE && SECTIONS.length === 4) writeFileSync(REPORT, report);
  if (SAVE_BASELINE) writeFileSync(BASELINE_FILE, `${JSON.stringify(current, null, 2)}\n`);
  process.exitCode = failed.length ? 1 : 0;
}

await main();
