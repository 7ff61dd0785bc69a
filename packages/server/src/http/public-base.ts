/**
 * The base URL that links handed to a client are minted under (upload URLs through the service's
 * own route, invite links): VESTA_PUBLIC_URL when it is set; otherwise the origin the request came
 * to, so that a dashboard opened at `http://localhost:8080`, `http://127.0.0.1:8080` or a LAN
 * address uploads to that same origin (its Content-Security-Policy allows no other).
 *
 * The request's Host is trusted only when it names this machine: a loopback name or address
 * (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`), the address the service listens on (any
 * address of the machine's interfaces when it listens on all), the machine's host name (and
 * `<hostname>.local`), or a name in VESTA_ALLOWED_HOSTS. Any other Host is 400 `validation_failed`
 * naming both settings: a forged Host must never put a link to another site in a client's hands.
 */
import os from 'node:os';
import type { FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import { validationFailed } from '../errors.js';

/** `name[:port]`, the name a host name, an IPv4 address or a bracketed IPv6 address. */
const HOST_HEADER = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

type PublicBaseConfig = Pick<ServerConfig, 'publicUrl' | 'allowedHosts' | 'host'>;

/** An address as a URL's hostname spells it (IPv6 in brackets, without a zone). */
function urlHostname(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  return bare.includes(':') && !bare.startsWith('[') ? `[${bare}]` : bare;
}

/** The names of this machine a request may arrive under, besides loopback and the allowlist. */
function machineNames(listenHost: string): Set<string> {
  const hostname = os.hostname().toLowerCase();
  const names = new Set([hostname, `${hostname}.local`]);
  if (!WILDCARD.has(listenHost.trim())) names.add(urlHostname(listenHost.trim()));
  else
    for (const list of Object.values(os.networkInterfaces()))
      for (const a of list ?? []) names.add(urlHostname(a.address));
  return names;
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname === '[::1]'
  );
}

/** Whether a request's Host (`name[:port]`) names this machine (see the module comment). */
export function hostAllowed(config: PublicBaseConfig, host: string): boolean {
  const m = HOST_HEADER.exec(host.toLowerCase());
  if (!m) return false;
  const hostname = m[1]!;
  return (
    isLoopback(hostname) || config.allowedHosts.includes(hostname) || machineNames(config.host).has(hostname)
  );
}

/** Where links for this request's client are minted: no trailing slash. */
export function publicBaseOf(request: FastifyRequest, config: PublicBaseConfig): string {
  if (config.publicUrl !== null) return config.publicUrl;
  const host = request.headers.host;
  if (host === undefined || host === '')
    throw validationFailed(
      'the request has no Host header, so no link can be minted for it; set VESTA_PUBLIC_URL to the URL clients reach this server at',
    );
  if (!hostAllowed(config, host))
    throw validationFailed(
      `this server does not answer to the host name in the request (Host: ${JSON.stringify(host.slice(0, 100))}), so it mints no link under it: set VESTA_PUBLIC_URL to the URL clients reach it at, or add the name to VESTA_ALLOWED_HOSTS`,
    );
  return `${request.protocol}://${host.toLowerCase()}`;
}
