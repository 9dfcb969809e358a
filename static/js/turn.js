// The last turn's captures fly from their space to the taker's panel, once per position,
// after the page opens (none under prefers-reduced-motion: the CSS hides them too). Only positions are set
// here; the cards themselves are in the page, and lay face up on the board before.
(function () {
  "use strict";
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  // Once per position: a reload of the same position (or coming back to it) shows the cards
  // where they are without flying them again.
  const game = document.querySelector(".game[data-version]");
  const key = `flown:${location.pathname}`;
  try {
    if (!game || sessionStorage.getItem(key) === game.dataset.version) return;
    sessionStorage.setItem(key, game.dataset.version);
  } catch (e) { /* storage refused: fly every time */ }
  document.querySelectorAll(".flight").forEach((flight) => {
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
    flight.classList.add("flying");
    flight.addEventListener("animationend", () => { flight.hidden = true; });
  });
})();

// Taking a turn: pick cards of one type, see the space they go to, the free slots and the
// choice the play needs, then confirm. The server checks everything again; this only helps.
(function () {
  "use strict";
  const form = document.getElementById("play-form");
  if (!form) return;
  const button = document.getElementById("play-button");
  const hint = document.getElementById("play-hint");
  if (!button || !hint) return;
  const boxes = Array.from(form.querySelectorAll('input[name="cards"]'));
  const choices = Array.from(form.querySelectorAll("fieldset.choice"));
  const heroLying = Number(form.dataset.heroLying || 0);
  const t = (document.documentElement.lang || "en").slice(0, 2);
  // The hints in each language of settings.LANGUAGES (kept here, not in a JS catalogue: five
  // short sentences do not need one). Ukrainian has three plural forms.
  const ukPlural = (n, one, few, many) =>
    n % 10 === 1 && n % 100 !== 11 ? one : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? few : many;
  const words = {
    en: { pick: "Choose cards of one type.", mixed: "All cards of one turn must be of one type.",
          slots: (n) => `Only ${n} free slot${n === 1 ? "" : "s"} on that space.`,
          choose: "Choose what to take.", ready: "Ready: confirm your play." },
    de: { pick: "Wähle Karten einer Sorte.", mixed: "Alle Karten eines Zuges müssen von derselben Sorte sein.",
          slots: (n) => (n === 1 ? "Auf diesem Feld ist nur 1 Platz frei." : `Auf diesem Feld sind nur ${n} Plätze frei.`),
          choose: "Wähle, was du nimmst.", ready: "Bereit: bestätige deinen Zug." },
    es: { pick: "Elige cartas de un solo tipo.", mixed: "Todas las cartas de un turno deben ser del mismo tipo.",
          slots: (n) => (n === 1 ? "Solo queda 1 hueco libre en ese espacio." : `Solo quedan ${n} huecos libres en ese espacio.`),
          choose: "Elige qué te llevas.", ready: "Listo: confirma tu jugada." },
    fr: { pick: "Choisissez des cartes d’un seul type.", mixed: "Toutes les cartes d’un tour doivent être du même type.",
          slots: (n) => `Seulement ${n} place${n > 1 ? "s" : ""} libre${n > 1 ? "s" : ""} sur cet emplacement.`,
          choose: "Choisissez ce que vous prenez.", ready: "Prêt : confirmez votre coup." },
    uk: { pick: "Виберіть карти одного типу.", mixed: "Усі карти одного ходу мають бути одного типу.",
          slots: (n) => `На цьому полі вільно лише ${n} ${ukPlural(n, "місце", "місця", "місць")}.`,
          choose: "Виберіть, що взяти.", ready: "Готово: підтвердьте свій хід." },
  };
  const say = words[t] || words.en;

  function space(kind) { return document.querySelector(`.space[data-space="${kind}"]`); }

  function update() {
    const picked = boxes.filter((b) => b.checked);
    const kinds = new Set(picked.map((b) => b.dataset.type));
    document.querySelectorAll(".space.target").forEach((s) => s.classList.remove("target"));
    choices.forEach((c) => { c.hidden = true; });
    let ok = picked.length > 0 || boxes.length === 0;
    let message = boxes.length === 0 ? "" : say.pick;
    if (kinds.size > 1) { ok = false; message = say.mixed; }
    else if (kinds.size === 1) {
      const kind = [...kinds][0];
      const target = space(kind);
      if (target) target.classList.add("target");
      const free = target && target.dataset.free !== "" ? Number(target.dataset.free) : Infinity;
      if (picked.length > free) { ok = false; message = say.slots(free); }
      else {
        message = say.ready;
        const needs = kind === "princess" ? "princess" : (kind === "hero" && heroLying + picked.length === 2 ? "hero" : null);
        choices.forEach((c) => { c.hidden = c.dataset.for !== needs; if (c.hidden) c.querySelectorAll("input").forEach((i) => { i.checked = false; }); });
        const fieldset = choices.find((c) => c.dataset.for === needs);
        if (fieldset && !fieldset.querySelector("input:checked")) { ok = false; message = say.choose; }
      }
    }
    boxes.forEach((b) => b.closest("label").classList.toggle("picked", b.checked));
    button.disabled = !ok;
    hint.textContent = message;
  }

  form.addEventListener("change", update);
  update();
})();
