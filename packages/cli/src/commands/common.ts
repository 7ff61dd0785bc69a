/** Helpers shared by the client commands. */
import { InvalidArgumentError, type Command } from 'commander';

/** Adds `--json` and an Examples block to a leaf command. */
export function leaf(cmd: Command, examples: string[]): Command {
  cmd.option('--json', 'print a stable JSON document on stdout (errors as JSON on stderr)');
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  return cmd;
}

/** Adds an Examples block to a command group. */
export function group(cmd: Command, examples: string[]): Command {
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  return cmd;
}

/** A commander argument parser for positive integers. */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('must be a whole number of at least 1');
  return Number(value);
}

/** A commander argument parser for seconds (positive, may be fractional). */
export function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of seconds');
  return n;
}

/** Comma- or space-separated list, accumulated over repeated flags. */
export function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(/[,\s]+/).filter(Boolean)];
}

/**
 * A commander argument parser for a number ≥ 0 (a margin), written in decimal: `0.01`, `5e-3`.
 * `Number` alone also reads `0x10` as 16 and `0b1` as 1, a margin nobody meant.
 */
export function nonNegativeNumber(value: string): number {
  const n = /^\s*(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number ≥ 0');
  return n;
}
