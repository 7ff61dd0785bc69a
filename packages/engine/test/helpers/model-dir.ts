/**
 * Fixture models for every model-backed method, laid out like the real repositories in a local
 * model directory (`<dir>/<repo>/<path>`, the store's `localDir` / `VESTA_MODELS_LOCAL_DIR`), and
 * a manifest that pins them: the ids, repositories and file paths of `MODEL_MANIFEST`, with the
 * fixture files' sizes and sha256 (fp32 files only).
 *
 * Fixtures have the real tensor names and layouts (H6a's builders) and known weights, so a test
 * can compute what each dimension must answer. The CLIP tokenizer is a tiny CLIP-shaped BPE
 * (`tinyClipTokenizerJson`): same normaliser, pre-tokeniser, `</w>` suffix and special tokens as
 * the real `tokenizer.json`, with a vocabulary of single letters and a few merges.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MODEL_MANIFEST } from '../../src/models/manifest.js';
import type { ModelManifestEntry } from '../../src/models/manifest.js';
import {
  seededWeights,
  tinyClipText,
  tinyClipVision,
  tinyDetr,
  tinyDino,
  tinyFlow,
  tinyInterpolator,
} from '../../src/testing/index.js';

export const SOT = 49406;
export const EOT = 49407;

/** Vocabulary of the tiny tokenizer: letters, letters with `</w>`, punctuation, a few merges. */
export function tinyClipVocab(): Record<string, number> {
  const vocab: Record<string, number> = {};
  let id = 0;
  for (const c of 'abcdefghijklmnopqrstuvwxyz') vocab[c] = id++;
  for (const c of 'abcdefghijklmnopqrstuvwxyz') vocab[`${c}</w>`] = id++;
  for (const p of ['.</w>', ',</w>', 'ca', 'cat</w>', 'ph', 'pho', 'phot', 'photo</w>']) vocab[p] = id++;
  vocab['<|startoftext|>'] = SOT;
  vocab['<|endoftext|>'] = EOT;
  return vocab;
}

export function tinyClipTokenizerJson(): object {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: true,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(SOT, '<|startoftext|>'), special(EOT, '<|endoftext|>')],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFC' },
        { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
        { type: 'Lowercase' },
      ],
    },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {
          type: 'Split',
          pattern: {
            Regex:
              "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+",
          },
          behavior: 'Removed',
          invert: true,
        },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: {
      type: 'RobertaProcessing',
      sep: ['<|endoftext|>', EOT],
      cls: ['<|startoftext|>', SOT],
      trim_offsets: false,
      add_prefix_space: false,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<|endoftext|>',
      continuing_subword_prefix: '',
      end_of_word_suffix: '</w>',
      fuse_unk: false,
      vocab: tinyClipVocab(),
      merges: ['c a', 'ca t</w>', 'p h', 'ph o', 'pho t', 'phot o</w>'],
    },
  };
}

/** A PyTorch zip checkpoint of nn.Linear(inDim, 1): stored entries `archive/data/0` (weight), `archive/data/1` (bias). */
export function linearHeadPth(weight: Float32Array, bias: number): Uint8Array {
  const entries: Array<[string, Uint8Array]> = [
    ['archive/data.pkl', new TextEncoder().encode('pickle-placeholder-for-fixture')],
    ['archive/data/0', new Uint8Array(weight.buffer.slice(0))],
    ['archive/data/1', new Uint8Array(new Float32Array([bias]).buffer)],
    ['archive/version', new TextEncoder().encode('3\n')],
  ];
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (b: Uint8Array): number => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = new TextEncoder().encode(name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint32(14, crc32(data), true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, n.length, true);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 20, true);
    cd.setUint16(6, 20, true);
    cd.setUint32(16, crc32(data), true);
    cd.setUint32(20, data.length, true);
    cd.setUint32(24, data.length, true);
    cd.setUint16(28, n.length, true);
    cd.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), n, data);
    central.push(new Uint8Array(cd.buffer), n);
    offset += 30 + n.length + data.length;
  }
  const cdSize = central.reduce((a, b) => a + b.length, 0);
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, entries.length, true);
  eocd.setUint16(10, entries.length, true);
  eocd.setUint32(12, cdSize, true);
  eocd.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(eocd.buffer)];
  const out = new Uint8Array(all.reduce((a, b) => a + b.length, 0));
  let p = 0;
  for (const a of all) {
    out.set(a, p);
    p += a.length;
  }
  return out;
}

/** Labels of the tiny detector (class index → COCO name; the last index is "no object"). */
export const DETR_LABELS = ['person', 'car', 'dog', 'cat'];

export function fixtureModelSet() {
  const clipVision = tinyClipVision({ seed: 11 });
  const clipText = tinyClipText({ seed: 12 });
  const clipL14 = tinyClipVision({ seed: 13, patch: 14, embed: 768 });
  const head = { weight: seededWeights(14, 768, 0.5), bias: 4.5 };
  const dino = tinyDino({ seed: 15 });
  const detr = tinyDetr({ seed: 16, classes: DETR_LABELS.length, patch: 64 });
  const flow = tinyFlow({ seed: 17 });
  const rife = tinyInterpolator();
  const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
  const id2label = Object.fromEntries(DETR_LABELS.map((l, i) => [String(i), l]));
  /** Bytes by model id → repository path. */
  const files: Record<string, Record<string, Uint8Array>> = {
    'clip-vit-b32': {
      'onnx/vision_model.onnx': clipVision.bytes,
      'onnx/text_model.onnx': clipText.bytes,
      'tokenizer.json': json(tinyClipTokenizerJson()),
      'tokenizer_config.json': json({ model_max_length: 77, pad_token: '<|endoftext|>' }),
      'preprocessor_config.json': json({
        size: { shortest_edge: 224 },
        crop_size: { height: 224, width: 224 },
      }),
      'config.json': json({ model_type: 'clip' }),
    },
    'clip-vit-l14': {
      'onnx/vision_model.onnx': clipL14.bytes,
      'preprocessor_config.json': json({ size: { shortest_edge: 224 } }),
      'config.json': json({ model_type: 'clip' }),
    },
    'laion-aesthetic-v1-linear': { 'sa_0_4_vit_l_14_linear.pth': linearHeadPth(head.weight, head.bias) },
    'dino-vitb16': {
      'onnx/model.onnx': dino.bytes,
      'preprocessor_config.json': json({ size: { shortest_edge: 224 } }),
      'config.json': json({ model_type: 'vit' }),
    },
    'detr-resnet-50': {
      'onnx/model.onnx': detr.bytes,
      'preprocessor_config.json': json({ size: { shortest_edge: 800, longest_edge: 1333 } }),
      'config.json': json({ model_type: 'detr', id2label }),
    },
    'raft-sintel': { 'optical_flow_estimation_raft_2023aug.onnx': flow.bytes },
    'rife-v4.9': { 'rife49.onnx': rife.bytes },
  };
  return { clipVision, clipText, clipL14, head, dino, detr, flow, rife, files };
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * Writes the fixture set into `dir` in the repositories' layout and returns a manifest (the
 * real ids, repositories and paths; fp32 only; pinned to the fixture bytes).
 */
export function writeFixtureModelDir(dir: string, set = fixtureModelSet()): ModelManifestEntry[] {
  const manifest: ModelManifestEntry[] = [];
  for (const [id, byPath] of Object.entries(set.files)) {
    const real = MODEL_MANIFEST.find((m) => m.id === id);
    if (!real) throw new Error(`fixture for unknown model ${id}`);
    const files = real.files
      .filter((f) => f.precision === null || f.precision === 'fp32')
      .map((f) => {
        const bytes = byPath[f.path];
        if (!bytes) throw new Error(`fixture ${id} lacks ${f.path}`);
        const path = join(dir, real.source.repo, f.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, bytes);
        return { ...f, size: bytes.length, sha256: sha256(bytes) };
      });
    manifest.push({
      ...real,
      revision: 'f1f7e00000000000000000000000000000000000',
      precisions: ['fp32'],
      files,
    });
  }
  return manifest;
}
