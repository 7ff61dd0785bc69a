/**
 * CLIP text tokenisation: the model's own `tokenizer.json` (byte-level BPE with `</w>` word ends,
 * `<|startoftext|>` / `<|endoftext|>` added by its post-processor) run by `@huggingface/tokenizers`,
 * then padded or truncated to CLIP's context length (77), as `clip.tokenize` does: a text longer
 * than the context is cut and its last position is set to end-of-text; padding uses the id from
 * `tokenizer_config.json`'s `pad_token` when given, else end-of-text (the Xenova CLIP exports pad
 * with `<|endoftext|>`), else 0.
 */
import { readFileSync } from 'node:fs';
import * as tokenizers from '@huggingface/tokenizers';
import { EngineError } from '../contract.js';

export const CLIP_CONTEXT_LENGTH = 77;

export interface TokenizedBatch {
  /** int64 ids, row-major [count, length]. */
  ids: BigInt64Array;
  /** 1 for real tokens, 0 for padding. */
  mask: BigInt64Array;
  count: number;
  length: number;
}

export interface ClipTokenizer {
  encode(texts: readonly string[]): TokenizedBatch;
}

/** The part of `@huggingface/tokenizers`' Tokenizer used here (its bundled typings do not resolve under NodeNext). */
interface HfTokenizer {
  encode(text: string): { ids: number[] };
  token_to_id(token: string): number | undefined;
}
type HfTokenizerCtor = new (tokenizer: object, config: object) => HfTokenizer;
const Tokenizer = (tokenizers as unknown as { Tokenizer: HfTokenizerCtor }).Tokenizer;

function parseJson(path: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new EngineError('model_unavailable', `cannot read ${what} ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function tokenString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') {
    return (v as { content: string }).content;
  }
  return null;
}

/** Loads a tokenizer from `tokenizer.json` (and the optional `tokenizer_config.json`). */
export function loadClipTokenizer(
  tokenizerPath: string,
  configPath?: string | null,
  contextLength = CLIP_CONTEXT_LENGTH,
): ClipTokenizer {
  const json = parseJson(tokenizerPath, 'tokenizer');
  const config = configPath ? parseJson(configPath, 'tokenizer config') : {};
  let tokenizer: HfTokenizer;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (err) {
    throw new EngineError(
      'model_unavailable',
      `invalid tokenizer ${tokenizerPath}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const eot = tokenizer.token_to_id('<|endoftext|>');
  const padName = tokenString(config.pad_token);
  const pad = (padName !== null ? tokenizer.token_to_id(padName) : undefined) ?? eot ?? 0;
  return {
    encode(texts) {
      const ids = new BigInt64Array(texts.length * contextLength);
      const mask = new BigInt64Array(texts.length * contextLength);
      texts.forEach((text, row) => {
        let tokens = tokenizer.encode(text).ids;
        if (tokens.length > contextLength) {
          tokens = tokens.slice(0, contextLength);
          if (eot !== undefined) tokens[contextLength - 1] = eot;
        }
        for (let i = 0; i < contextLength; i++) {
          const real = i < tokens.length;
          ids[row * contextLength + i] = BigInt(real ? tokens[i]! : pad);
          mask[row * contextLength + i] = real ? 1n : 0n;
        }
      });
      return { ids, mask, count: texts.length, length: contextLength };
    },
  };
}
