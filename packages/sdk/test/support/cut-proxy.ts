/**
 * A TCP proxy in front of the test server that a test cuts and restores, as an api process that
 * restarts: `cut()` closes every open connection and the port then refuses new ones; `restore()`
 * listens on the same port again. Bytes pass through untouched.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface CutProxy {
  baseUrl: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

export async function startCutProxy(upstreamBaseUrl: string): Promise<CutProxy> {
  const upstream = new URL(upstreamBaseUrl);
  const sockets = new Set<Socket>();
  let listener: Server | undefined;
  let port = 0;

  const listen = async (): Promise<void> => {
    const server = createServer((client) => {
      const target = createConnection({ host: upstream.hostname, port: Number(upstream.port) });
      for (const s of [client, target]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(target).on('error', () => undefined);
      target.pipe(client).on('error', () => undefined);
      client.on('close', () => target.destroy());
      target.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : port;
    listener = server;
  };

  const cut = async (): Promise<void> => {
    const server = listener;
    listener = undefined;
    for (const s of sockets) s.destroy();
    sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  await listen();
  return { baseUrl: `http://127.0.0.1:${port}`, cut, restore: listen, stop: cut };
}
