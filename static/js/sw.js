// The service worker. Served at /sw.js (scope: the whole site) by games/views/app.py, which puts
// its configuration above this file as self.DRAGONHEART: the version, the static files to
// precache, the offline page's URL and the site's languages.
//
// Static files are served from the cache first (their names change with their contents in
// production, and the version changes with them). Pages go to the network and are never cached:
// they carry the player's games and a CSRF token. When a page cannot be reached, the offline page
// answers, in the language of the last page the network gave. Nothing else (the API, the polls,
// any POST) is touched.
(function () {
  "use strict";
  const config = self.DRAGONHEART;
  const PREFIX = "dragonheart-";
  const CACHE = PREFIX + config.version;
  // Where the worker keeps the language of the last page, as it may be stopped at any time.
  const LANGUAGE_KEY = config.offline + "?language=last";
  let language = null;

  const offlineUrl = (code) => config.offline + "?language=" + code;

  self.addEventListener("install", (event) => {
    // The offline pages must be there, or the worker is of no use: without them the install
    // fails and the browser tries again at the next visit. A static file that does not come
    // (a slow or lost answer) is only left out: the first page that needs it fetches it.
    const optional = (cache, url) => cache.add(url).catch(() => undefined);
    event.waitUntil(
      caches.open(CACHE)
        .then((cache) => Promise.all([
          cache.addAll(config.languages.map(offlineUrl)),
          ...config.precache.map((url) => optional(cache, url)),
        ]))
        .then(() => self.skipWaiting()),
    );
  });

  self.addEventListener("activate", (event) => {
    // A deploy's new version replaces the old cache, and the worker takes the open pages.
    const old = (name) => name.startsWith(PREFIX) && name !== CACHE;
    event.waitUntil(
      caches.keys()
        .then((names) => Promise.all(names.filter(old).map((name) => caches.delete(name))))
        .then(() => self.clients.claim()),
    );
  });

  self.addEventListener("fetch", (event) => {
    const request = event.request;
    if (request.method !== "GET") return;
    const url = new URL(request.url);
    if (url.origin !== self.location.origin) return;
    if (request.mode === "navigate") {
      event.respondWith(page(request));
    } else if (url.pathname.startsWith(config.static)) {
      event.respondWith(staticFile(request));
    }
  });

  async function page(request) {
    try {
      const response = await fetch(request);
      remember(response.headers.get("Content-Language"));
      return response;
    } catch (error) {
      return offlinePage();
    }
  }

  async function staticFile(request) {
    const cache = await caches.open(CACHE);
    const cached = await cache.match(request);
    if (cached) return cached;
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  }

  function remember(code) {
    if (!config.languages.includes(code) || code === language) return;
    language = code;
    caches.open(CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(code)));
  }

  async function offlinePage() {
    const cache = await caches.open(CACHE);
    const code = language || (await lastLanguage(cache)) || browserLanguage();
    const found = (await cache.match(offlineUrl(code))) || (await cache.match(offlineUrl(config.fallback)));
    return found || Response.error();
  }

  async function lastLanguage(cache) {
    const stored = await cache.match(LANGUAGE_KEY);
    return stored ? stored.text() : null;
  }

  function browserLanguage() {
    const codes = (self.navigator.languages || []).map((tag) => tag.slice(0, 2).toLowerCase());
    return codes.find((code) => config.languages.includes(code)) || config.fallback;
  }

  // Push notifications (notifications/push.py): the payload is {kind, game_id, title, body, url}
  // in the reader's language, with no card the reader may not see. One notification per game
  // (its tag): a newer push about the same game replaces the older one instead of piling up.
  self.addEventListener("push", (event) => {
    let data = {};
    try {
      data = event.data ? event.data.json() : {};
    } catch (error) {
      data = {}; // not ours, or damaged: still show something, as browsers require
    }
    const options = {
      body: data.body || "",
      icon: config.static + "icons/icon-192.png",
      badge: config.static + "icons/icon-192.png",
      data: { url: data.url || "/" },
    };
    if (data.game_id) {
      options.tag = "game-" + data.game_id;
      options.renotify = true;
    }
    event.waitUntil(self.registration.showNotification(data.title || "Dragonheart", options));
  });

  // A tap opens the game: a tab already on it is focused, else a new one opens. Only the site's
  // own pages are opened, whatever the payload says.
  self.addEventListener("notificationclick", (event) => {
    event.notification.close();
    const url = (event.notification.data && event.notification.data.url) || "/";
    const target = new URL(url, self.location.origin);
    if (target.origin !== self.location.origin) return;
    event.waitUntil(openOrFocus(target.href));
  });

  async function openOrFocus(href) {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => client.url.split("#")[0] === href);
    if (open) return open.focus();
    return self.clients.openWindow(href);
  }
})();
