import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

/** Where the reference web client is served; `/` redirects here. */
export const WEB_CLIENT_PREFIX = '/app/';

/** Options of the web-client plugin: the folder of a built `packages/web` (its `index.html` and assets). */
export interface WebClientOptions {
  readonly root: string;
}

/**
 * Serves the built web client at /app/: hashed assets as immutable files, every other path under
 * /app/ as index.html (the app routes in the browser), index.html and the service worker always
 * revalidated so a new build is picked up. Only /app/ and / are touched: /api/*, /health*, /metrics
 * and the docs keep their own routes, and an unknown /api/... path still gets the 404 envelope.
 */
export const webClientPlugin = fp<WebClientOptions>(
  async (app: FastifyInstance, opts) => {
    // Its own scope, so the hook below touches only the app's answers.
    await app.register(async (scope) => serveApp(scope, opts.root));
  },
  { name: 'calsync-web-client' },
);

async function serveApp(app: FastifyInstance, root: string): Promise<void> {
  // helmet's policy for the app too, without `upgrade-insecure-requests`: opened over plain http by
  // a LAN address or host name, a browser would otherwise fetch the app's scripts over https and
  // show a blank page.
  app.addHook('onSend', async (_request, reply, payload) => {
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy === 'string') reply.header('content-security-policy', policy.replace(/\s*upgrade-insecure-requests;?/g, '').trim());
    return payload;
  });
  await app.register(fastifyStatic, {
    root,
    prefix: WEB_CLIENT_PREFIX,
    // Routes only for the files present at start-up; the fallback below answers the rest.
    wildcard: false,
    index: false,
    cacheControl: false,
    // The web build writes .br and .gz copies of its text files; a browser that accepts one gets
    // it (with Vary: Accept-Encoding), any other the file itself.
    preCompressed: true,
    setHeaders: (res, path) => {
      const immutable = /[\\/]assets[\\/]/.test(path);
      res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      // Which copy is sent depends on Accept-Encoding, so a shared cache must key on it too.
      res.setHeader('vary', 'Accept-Encoding');
    },
  });
  const sendIndex = (_request: unknown, reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect(WEB_CLIENT_PREFIX));
  app.get('/app', { schema: { hide: true } }, (_request, reply) => reply.redirect(WEB_CLIENT_PREFIX));
  app.get(WEB_CLIENT_PREFIX, { schema: { hide: true } }, sendIndex);
  app.get(`${WEB_CLIENT_PREFIX}*`, { schema: { hide: true } }, (request, reply) => {
    // A missing asset is a 404, not the app's HTML (a browser would try to run HTML as script).
    if (/\.[a-z0-9]+$/i.test(request.url.split('?')[0] ?? '')) return reply.callNotFound();
    return sendIndex(request, reply);
  });
}
