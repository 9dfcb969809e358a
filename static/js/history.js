// Arrow keys step through the history, Home and End jump to its ends.
document.addEventListener("keydown", function (e) {
  "use strict";
  if (e.target.closest && e.target.closest("input, textarea, select")) return;
  const ids = { ArrowLeft: "step-prev", ArrowRight: "step-next", Home: "step-first", End: "step-last" };
  const link = ids[e.key] && document.getElementById(ids[e.key]);
  if (link) { e.preventDefault(); window.location = link.href; }
});
