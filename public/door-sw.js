// The door page's service worker: it keeps the page and its scripts, so a
// door device that lost its network can still open the page and scan.
// Network first, so a device online always runs the latest page; the copy
// kept is used only when the network fails. The API is never kept here:
// the page keeps its ticket list in IndexedDB itself.
'use strict';

const CACHE = 'door-page-v1';
const FILES = ['/door', '/app.js', '/app.css', '/door.js', '/vendor/jsQR.js'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !FILES.includes(url.pathname)) return;
  event.respondWith((async () => {
    try {
      // A network that is half there (Wi-Fi up, the internet down) is
      // given a few seconds, then the page kept here is used.
      const fresh = await fetch(event.request, { signal: AbortSignal.timeout(5000) });
      if (fresh.ok) {
        const copy = fresh.clone();
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(url.pathname, copy)));
      }
      return fresh;
    } catch (offline) {
      const kept = await caches.match(url.pathname);
      if (kept) return kept;
      throw offline;
    }
  })());
});
