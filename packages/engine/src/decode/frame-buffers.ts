/**
 * Frame buffers reused across one evaluation's decode. Every decoded frame (or band) otherwise
 * gets a fresh zero-filled buffer that is freed later on another thread: for a 1280x720 RGB
 * output that is 2.7 MB a frame of fresh pages (page faults, zeroing) on the decoding thread and
 * garbage collection on the worker's.
 *
 * The buffers are `SharedArrayBuffer`s: a frame reaches its worker shared, not transferred, and is
 * never given back by transfer. Transferring detaches an `ArrayBuffer`, and the first detach in a
 * thread makes V8 check for detached buffers in its optimised typed-array code from then on, which
 * measured about 10–15 % slower for the methods' kernels. The pipeline takes a buffer back once
 * the worker has acknowledged the message that carried it, and only for an output whose every run
 * declares `releasesFrames` (keeps nothing of a frame after `push`); the decoder overwrites every
 * byte of a buffer before it yields it again.
 *
 * Bounded: at most `perSize` buffers of one size and `maxBytes` in all are kept for reuse; the
 * rest are left to the garbage collector.
 */
export class FrameBuffers {
  private readonly free = new Map<number, SharedArrayBuffer[]>();
  private bytes = 0;

  constructor(
    private readonly perSize = 12,
    private readonly maxBytes = 64 << 20,
  ) {}

  /** A shared buffer of `length` bytes: a given-back one when there is one, else a new one. */
  take(length: number): Uint8Array {
    const kept = this.free.get(length)?.pop();
    if (kept) {
      this.bytes -= length;
      return new Uint8Array(kept);
    }
    return new Uint8Array(new SharedArrayBuffer(length));
  }

  /** A buffer the decoder may overwrite and yield again (its reader is done with it). */
  give(buffer: SharedArrayBuffer): void {
    const length = buffer.byteLength;
    if (length === 0 || this.bytes + length > this.maxBytes) return;
    let list = this.free.get(length);
    if (!list) {
      list = [];
      this.free.set(length, list);
    }
    if (list.length >= this.perSize) return;
    list.push(buffer);
    this.bytes += length;
  }

  /** Bytes held for reuse. */
  get heldBytes(): number {
    return this.bytes;
  }
}
