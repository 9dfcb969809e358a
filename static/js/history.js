// The history page: arrow keys step through the turns, Home and End jump to its ends; the log
// keeps the current turn in view (inside its own box, without moving the page).
(function () {
  "use strict";
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    const ids = { ArrowLeft: "step-prev", ArrowRight: "step-next", Home: "step-first", End: "step-last" };
    const link = ids[e.key] && document.getElementById(ids[e.key]);
    if (!link) return;
    e.preventDefault();
    if (link.getAttribute("aria-disabled") !== "true") window.location = link.href;
  });
  const log = document.getElementById("log");
  const now = log && log.querySelector("li.now");
  if (now) log.scrollTop = now.offsetTop - (log.clientHeight - now.offsetHeight) / 2;
})();
