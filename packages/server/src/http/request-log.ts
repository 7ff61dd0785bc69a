/**
 * Request logging without a logger per request. Fastify gives every request a child of the app's
 * logger bound to its request id; building a pino child costs more than the request's own log
 * line, and most requests never log anything but that line. So `request.log` is a
 * `LazyRequestLogger` that creates the pino child only when something logs through it (errors,
 * rejections, route code), and the one line each request writes on completion goes through the
 * app's logger with the request id as a field, like the child would have written it.
 */
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/** Forwards to a child of `parent` with `bindings`, created on first use. */
class LazyRequestLogger {
  private real: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private logger(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  private log(level: Level, obj: unknown, msg: string | undefined, args: unknown[]): void {
    const logger = this.logger();
    // Forward the arguments as given (pino formats by their number).
    if (msg === undefined && args.length === 0) logger[level](obj);
    else logger[level](obj, msg, ...args);
  }

  get level(): string {
    return this.real === null && this.options?.level === undefined ? this.parent.level : this.logger().level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('fatal', obj, msg, args);
  }
  error(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('error', obj, msg, args);
  }
  warn(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('warn', obj, msg, args);
  }
  info(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('info', obj, msg, args);
  }
  debug(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('debug', obj, msg, args);
  }
  trace(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.log('trace', obj, msg, args);
  }
  silent(): void {
    // Level `silent` writes nothing.
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the per-request logger is created only if used. */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
