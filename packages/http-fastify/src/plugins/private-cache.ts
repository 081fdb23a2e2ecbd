import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Strong ETag of a response body: a quoted base64url SHA-256 prefix. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Route onSend hook of protected GET routes (docs/api.md): `Cache-Control: private, no-cache`, an ETag
 * of the body (the one the route set, if it did: it must be a strong tag, the same only for the same
 * bytes, as `etagOf` the body is), and 304 with no body when `If-None-Match` matches. Only 200
 * answers are tagged.
 */
export async function privateCacheOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.header('cache-control', 'private, no-cache');
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  // A route that already knows its body's tag (one it sends again unchanged, a pull page) has set it.
  const known = reply.getHeader('etag');
  const etag = typeof known === 'string' ? known : etagOf(payload);
  reply.header('etag', etag);
  const inm = request.headers['if-none-match'];
  if (matches(typeof inm === 'string' ? inm : undefined, etag)) {
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return '';
  }
  return payload;
}
