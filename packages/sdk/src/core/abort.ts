/** Abort helpers that work the same in Node and browsers. */
import { RequestAbortedError } from './errors.js';

/** Resolves after `ms`, or rejects with {@link RequestAbortedError} as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new RequestAbortedError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RequestAbortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Throws {@link RequestAbortedError} if `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RequestAbortedError(signal.reason);
}

/**
 * A controller that aborts when the parent signal aborts. `dispose()` detaches it from the parent
 * so long-lived parent signals do not collect listeners.
 */
export function linkedController(parent: AbortSignal | undefined): {
  controller: AbortController;
  dispose: () => void;
} {
  const controller = new AbortController();
  if (!parent) return { controller, dispose: () => undefined };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, dispose: () => undefined };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}
