/** Programmatic entry of the `vesta` CLI package. */
export { buildProgram, runCli, commandWord, CLIENT_COMMANDS } from './program.js';
export { CliContext, EXIT, describeError, type CliIo, type JsonError } from './context.js';
export { OPERATIONS, type OperationMapping } from './operations.js';
