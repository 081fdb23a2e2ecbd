import type { Plugin } from 'vite';

/**
 * Emits `sw.js` beside the built app: a service worker that precaches index.html and every file
 * of this build, so the app starts with the network off (its data then comes from IndexedDB).
 * The cache name carries a hash of the file list: a new build installs a new cache and drops the
 * old one. Written here rather than pulled in from a PWA toolkit because it is this small.
 */
export function serviceWorkerPlugin(): Plugin {
  let base = '/';
  return {
    name: 'calsync-service-worker',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((f) => !f.endsWith('.map'));
      const urls = [base, ...files.filter((f) => f !== 'index.html').map((f) => `${base}${f}`)];
      const version = hash(urls.join('\n'));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: serviceWorkerSource(base, `calsync-app-${version}`, urls) });
    },
  };
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}

function serviceWorkerSource(base: string, cacheName: string, urls: readonly string[]): string {
  return `// Generated at build time by service-worker-plugin.ts.
const CACHE = ${JSON.stringify(cacheName)};
const BASE = ${JSON.stringify(base)};
const PRECACHE = ${JSON.stringify(urls)};

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('calsync-app-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// Only the app's own files: API calls always go to the network (the SDK queues writes itself).
self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith(BASE)) return;
  if (request.mode === 'navigate') {
    // Network first so a new build shows up at once; the cached shell when offline.
    event.respondWith(fetch(request).catch(() => caches.match(BASE, { cacheName: CACHE }).then((r) => r || Response.error())));
    return;
  }
  event.respondWith(caches.match(request, { cacheName: CACHE }).then((hit) => hit || fetch(request)));
});
`;
}
