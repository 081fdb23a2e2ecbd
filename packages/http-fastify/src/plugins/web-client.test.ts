import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../test-support/index.js';

const BIG = `export const words = ${JSON.stringify(Array.from({ length: 500 }, (_, i) => `word-${i % 7}`))};`;

describe('the built web client at /app/', () => {
  let app: FastifyInstance;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'calsync-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>calsync</title><div id="root"></div>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log("app")');
    // A built chunk with the compressed copies the web build writes beside it.
    writeFileSync(join(root, 'assets', 'big-def456.js'), BIG);
    writeFileSync(join(root, 'assets', 'big-def456.js.gz'), gzipSync(BIG));
    writeFileSync(join(root, 'assets', 'big-def456.js.br'), brotliCompressSync(BIG));
    writeFileSync(join(root, 'sw.js'), 'self.addEventListener("fetch", () => {})');
    ({ app } = await build({ standIns: ['engine', 'sign-in'], webClientDir: root }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('redirects / and /app to /app/', async () => {
    for (const url of ['/', '/app']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/app/');
    }
  });

  it('serves index.html at /app/ and at every client-side route, always revalidated', async () => {
    for (const url of ['/app/', '/app/conflicts', '/app/calendars/anything']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="root">');
    }
  });

  it("keeps helmet's content security policy, without upgrade-insecure-requests (the app opened by a LAN address over http)", async () => {
    for (const url of ['/app/', '/app/assets/index-abc123.js']) {
      const policy = String((await app.inject({ method: 'GET', url })).headers['content-security-policy']);
      expect(policy, url).toContain("default-src 'self'");
      expect(policy, url).not.toContain('upgrade-insecure-requests');
    }
    // The API's answers keep the full policy.
    const api = await app.inject({ method: 'GET', url: '/health' });
    expect(String(api.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
  });

  it('serves hashed assets as immutable and the service worker revalidated', async () => {
    const asset = await app.inject({ method: 'GET', url: '/app/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    const sw = await app.inject({ method: 'GET', url: '/app/sw.js' });
    expect(sw.statusCode).toBe(200);
    expect(sw.headers['cache-control']).toBe('no-cache');
  });

  it('serves the compressed copy a browser accepts, the file itself to any other, always with Vary: Accept-Encoding', async () => {
    const url = '/app/assets/big-def456.js';
    const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(BIG);
    const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(BIG);
    const plain = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(BIG);
    for (const res of [br, gz, plain]) {
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['cache-control']).toContain('immutable');
      expect(String(res.headers.vary)).toMatch(/accept-encoding/i);
    }
    // A file without copies is sent as it is, whatever the browser accepts.
    const small = await app.inject({ method: 'GET', url: '/app/assets/index-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body).toBe('console.log("app")');
  });

  it('answers a missing asset with the 404 envelope, not the app page', async () => {
    const res = await app.inject({ method: 'GET', url: '/app/assets/missing-000.js' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('leaves the API alone: an unknown /api/... route is still the 404 envelope, health still answers', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/api/no-such-route' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
  });

  it('without a built client, / and /app/ are the 404 envelope', async () => {
    const { app: bare } = await build({ standIns: ['engine', 'sign-in'] });
    try {
      const res = await bare.inject({ method: 'GET', url: '/app/' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    } finally {
      await bare.close();
    }
  });
});
