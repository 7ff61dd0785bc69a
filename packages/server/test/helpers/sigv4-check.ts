/**
 * AWS Signature Version 4 verification for the test S3 server. s3rver accepts any V4 signature
 * (its README: "V4 signatures have incomplete support"), so the tests put this check in front of
 * it: each request's signature is recomputed from what actually arrived (method, path, query, the
 * signed headers' values) and a mismatch, an expired presigned URL or a signed header that is
 * missing is answered 403 as S3 answers it. That is what makes "Content-Type and Content-Length
 * are bound into the presigned PUT" testable here.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');
const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Why the request's signature is refused, or null when it holds (or the request is unsigned). */
export function sigV4Problem(
  req: IncomingMessage,
  secrets: Record<string, string>,
  now = Date.now(),
): string | null {
  const url = new URL(req.url ?? '/', 'http://x');
  const query = [...url.searchParams.entries()];
  const auth = req.headers.authorization;
  let credential: string;
  let signedHeaders: string[];
  let signature: string;
  let amzDate: string;
  let payloadHash: string;
  let canonicalQueryPairs: Array<[string, string]>;
  if (url.searchParams.get('X-Amz-Algorithm') === 'AWS4-HMAC-SHA256') {
    credential = url.searchParams.get('X-Amz-Credential') ?? '';
    signedHeaders = (url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';');
    signature = url.searchParams.get('X-Amz-Signature') ?? '';
    amzDate = url.searchParams.get('X-Amz-Date') ?? '';
    payloadHash = url.searchParams.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    const expires = Number(url.searchParams.get('X-Amz-Expires') ?? '0');
    const signedAt = Date.parse(
      amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    if (!(signedAt + expires * 1000 > now)) return 'AccessDenied: Request has expired';
    canonicalQueryPairs = query.filter(([k]) => k !== 'X-Amz-Signature');
  } else if (auth?.startsWith('AWS4-HMAC-SHA256 ')) {
    const parts = Object.fromEntries(
      auth
        .slice('AWS4-HMAC-SHA256 '.length)
        .split(/,\s*/)
        .map((p) => p.split('=') as [string, string]),
    );
    credential = parts.Credential ?? '';
    signedHeaders = (parts.SignedHeaders ?? '').split(';');
    signature = parts.Signature ?? '';
    amzDate = String(req.headers['x-amz-date'] ?? '');
    payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    canonicalQueryPairs = query;
  } else {
    return null;
  }
  const [accessKeyId, date, region, service] = credential.split('/');
  const secret = secrets[accessKeyId ?? ''];
  if (secret === undefined) return 'InvalidAccessKeyId';
  const headerLines: string[] = [];
  for (const name of signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return `SignatureDoesNotMatch: signed header ${name} is missing`;
    headerLines.push(
      `${name}:${(Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ')}`,
    );
  }
  const canonicalQuery = canonicalQueryPairs
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    req.method ?? 'GET',
    url.pathname,
    canonicalQuery,
    `${headerLines.join('\n')}\n`,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${secret}`, date ?? ''), region ?? ''), service ?? ''),
    'aws4_request',
  );
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  return expected === signature ? null : 'SignatureDoesNotMatch';
}

/** Wraps a request handler so that requests with a wrong V4 signature get S3's 403. */
export function verifyingSigV4(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  secrets: Record<string, string>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const problem = sigV4Problem(req, secrets);
    if (problem === null) return handler(req, res);
    const [code, message] = problem.split(': ');
    req.resume();
    res.writeHead(403, { 'Content-Type': 'application/xml', Connection: 'close' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message ?? 'The request signature we calculated does not match the signature you provided.'}</Message></Error>`,
    );
  };
}
