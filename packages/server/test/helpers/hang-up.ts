/**
 * A client that hangs up mid-PUT, on a raw socket: the request line and headers with the whole
 * clip's Content-Length, the first `sent` bytes of the body, then the connection closed — with a
 * FIN (`end`, what a process exiting or a closed laptop lid leaves) or a reset (`reset`, what a
 * dropped Wi-Fi connection's later packets meet). Resolves once it is closed on this side.
 */
import net from 'node:net';

export async function hangUpMidPut(
  uploadUrl: string,
  headers: Record<string, string>,
  body: Buffer,
  sent: number,
  how: 'end' | 'reset',
  /** Runs after the first bytes are sent, before the hang-up (e.g. waits until the server streams). */
  whileSending: () => Promise<unknown> = () => Promise.resolve(),
): Promise<void> {
  const url = new URL(uploadUrl);
  const head =
    `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
    Object.entries({ ...headers, 'Content-Length': String(body.length) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.write(head, () => resolve()));
  await new Promise<void>((resolve) => socket.write(body.subarray(0, sent), () => resolve()));
  await whileSending();
  if (how === 'end') {
    // The FIN goes out, then the socket is closed for good (as a process that exits leaves it).
    await new Promise<void>((resolve) => socket.end(resolve));
    socket.destroy();
  } else socket.resetAndDestroy();
}

/**
 * Sends the PUT again and again (every 100 ms) while it is refused with 409, for at most
 * `withinMs`; the first answer that is not a 409 (or the last 409), and how long it took.
 */
export async function retryPut(
  uploadUrl: string,
  headers: Record<string, string>,
  body: Buffer,
  withinMs: number,
): Promise<{ status: number; text: string; tookMs: number }> {
  const t0 = Date.now();
  for (;;) {
    const res = await fetch(uploadUrl, { method: 'PUT', headers, body: new Uint8Array(body) });
    const text = await res.text();
    const tookMs = Date.now() - t0;
    if (res.status !== 409 || tookMs > withinMs) return { status: res.status, text, tookMs };
    await new Promise((r) => setTimeout(r, 100));
  }
}
