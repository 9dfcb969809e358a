// A running game's page follows its game's stream (GET /api/games/{id}/stream/, through htmx's
// SSE extension: the poll element in games/game.html): each of the stream's events fetches the
// poll's answer at once, which reloads the page if the game moved. The element's timed poll is
// only the fallback: while the stream is open it is let through once every data-fallback-seconds
// (a stream that went quiet without an error; the poll also keeps the player "at the table",
// accounts/presence.py), and whenever the stream is down (not yet open, an error, a reconnection,
// closed at the game's end) it polls at its own quick pace again.
(function () {
  "use strict";
  const poll = document.querySelector(".poll[sse-connect]");
  if (!poll) return;
  const fallbackMs = (Number(poll.dataset.fallbackSeconds) || 60) * 1000;
  let streaming = false;
  let reloading = false;
  let lastPoll = Date.now();

  poll.addEventListener("htmx:sseOpen", () => { streaming = true; });
  poll.addEventListener("htmx:sseError", () => { streaming = false; });
  poll.addEventListener("htmx:sseClose", () => { streaming = false; });
  // A turn is a burst of events: the first one's answer reloads the page, and htmx would send
  // the request queued behind it (a second reload, cutting the first short). Nothing more goes
  // once a reload is under way.
  poll.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    if (xhr && xhr.getResponseHeader("HX-Refresh") === "true") reloading = true;
  });
  // A form sent the ordinary way (a play, a resignation) is a navigation under way: a reload
  // now would cut it short. htmx's own forms have had their default prevented by then.
  document.addEventListener("submit", (event) => {
    if (!event.defaultPrevented) reloading = true;
  });
  poll.addEventListener("htmx:confirm", (event) => {
    if (reloading) {
      event.preventDefault();
      return;
    }
    // A stream's event is the request's trigger: always let it through. A timed poll has none.
    if (event.detail.triggeringEvent) return;
    const now = Date.now();
    if (streaming && now - lastPoll < fallbackMs) {
      event.preventDefault();
      return;
    }
    lastPoll = now;
  });
})();
