// The last turn's captures fly from their space to the taker's panel, once per position,
// after the page opens (none under prefers-reduced-motion: the CSS hides them too). Only positions are set
// here; the cards themselves are in the page, and lay face up on the board before. A flight is
// hidden again once it lands, and stays hidden on a reload of the same position and when the page
// comes back from the back-forward cache (Back): it never lingers over the links below the table.
(function () {
  "use strict";
  const flights = Array.from(document.querySelectorAll(".flight"));
  const land = (flight) => {
    flight.classList.remove("flying");
    flight.hidden = true;
  };
  // A page restored by Back may have been left mid-flight: land every card at once.
  window.addEventListener("pageshow", (event) => { if (event.persisted) flights.forEach(land); });
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  // Once per position: a reload of the same position (or coming back to it) shows the cards
  // where they are without flying them again.
  const game = document.querySelector(".game[data-version]");
  const key = `flown:${location.pathname}`;
  try {
    if (!game || sessionStorage.getItem(key) === game.dataset.version) return;
    sessionStorage.setItem(key, game.dataset.version);
  } catch (e) { /* storage refused: fly every time */ }
  flights.forEach((flight) => {
    const from = flight.dataset.from === "hold"
      ? document.querySelector('.hold[data-space="hold"]')
      : document.querySelector(`.space[data-space="${flight.dataset.from}"]`);
    const to = document.querySelector(`.player[data-seat="${flight.dataset.to}"] .taken`);
    if (!from || !to) return;
    const a = from.getBoundingClientRect();
    const b = to.getBoundingClientRect();
    flight.hidden = false;
    const own = flight.getBoundingClientRect();
    const left = a.left + a.width / 2 - own.width / 2;
    const top = a.top + a.height / 2 - own.height / 2;
    flight.style.left = `${left}px`;
    flight.style.top = `${top}px`;
    flight.style.setProperty("--dx", `${b.left + b.width / 2 - left - own.width / 2}px`);
    flight.style.setProperty("--dy", `${b.top + b.height / 2 - top - own.height / 2}px`);
    flight.addEventListener("animationend", () => land(flight));
    flight.addEventListener("animationcancel", () => land(flight));
    flight.classList.add("flying");
  });
})();

// Taking a turn: pick cards of one type, see the space they go to and the choice the play
// needs, then confirm. What may be played is the server's answer (the legal plays it renders
// into the page), never worked out here; the server checks the play again when it comes.
// The words are Django's JavaScript catalogue (djangojs.po, served at /jsi18n/ before this).
(function () {
  "use strict";
  const form = document.getElementById("play-form");
  if (!form) return;
  const button = document.getElementById("play-button");
  const hint = document.getElementById("play-hint");
  const data = document.getElementById("legal-plays");
  if (!button || !hint || !data) return;
  const boxes = Array.from(form.querySelectorAll('input[name="cards"]'));
  const choices = Array.from(form.querySelectorAll("fieldset.choice"));
  const byId = new Map(boxes.map((b) => [b.value, b]));
  // The server lists one play per distinct multiset of values (the first such cards in hand
  // order): a play is the same whichever of two equal cards is picked, so plays are compared
  // by their type and values, not by their card ids.
  const shape = (ids) => ids.map((id) => {
    const box = byId.get(id);
    return box ? `${box.dataset.type}:${box.dataset.value}` : id;
  }).sort().join(" ");
  const legal = (JSON.parse(data.textContent) || []).map((p) => ({ ...p, shape: shape(p.cards) }));

  function space(kind) { return document.querySelector(`.space[data-space="${kind}"]`); }

  // Why no legal play matches the picked cards, in words.
  function refusal(picked, kinds) {
    if (picked.length === 0) return gettext("Choose cards of one type.");
    if (kinds.size > 1) return gettext("All cards of one turn must be of one type.");
    const kind = [...kinds][0];
    const most = Math.max(0, ...legal.filter((p) => byId.get(p.cards[0])?.dataset.type === kind)
      .map((p) => p.cards.length));
    const fmt = ngettext("Only %(n)s free slot on that space.", "Only %(n)s free slots on that space.", most);
    return interpolate(fmt, { n: most }, true);
  }

  // Shows the fieldset the matching plays choose in (none if one of them needs no choice);
  // answers whether a choice is still missing.
  function offerChoice(plays) {
    const wanted = new Set(plays.map((p) => p.choice));
    const needed = wanted.has(null) ? null
      : choices.find((c) => Array.from(c.querySelectorAll("input")).some((i) => wanted.has(i.value)));
    choices.forEach((c) => {
      c.hidden = c !== needed;
      if (c.hidden) c.querySelectorAll("input").forEach((i) => { i.checked = false; });
    });
    return Boolean(needed) && !needed.querySelector("input:checked");
  }

  function update() {
    const picked = boxes.filter((b) => b.checked);
    const kinds = new Set(picked.map((b) => b.dataset.type));
    document.querySelectorAll(".space.target").forEach((s) => s.classList.remove("target"));
    if (kinds.size === 1) space([...kinds][0])?.classList.add("target");
    const key = shape(picked.map((b) => b.value));
    const plays = legal.filter((p) => p.shape === key);
    let ok = plays.length > 0;
    let message;
    if (!ok) {
      offerChoice([{ choice: null }]);
      message = refusal(picked, kinds);
    } else if (offerChoice(plays)) {
      ok = false;
      message = gettext("Choose what to take.");
    } else {
      // An empty hand's one legal play is to pass: the button says so, the hint stays empty.
      message = boxes.length === 0 ? "" : gettext("Ready: confirm your play.");
    }
    boxes.forEach((b) => b.closest("label").classList.toggle("picked", b.checked));
    button.disabled = !ok;
    hint.textContent = message;
  }

  form.addEventListener("change", update);
  update();
})();
