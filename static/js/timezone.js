// The profile's time zone (templates/accounts/profile.html): the page works without this file
// (one select, its cities grouped by region); with it, a region select and a search narrow the
// cities, and the device's own zone is offered in one tap when it is not the saved one.
(function () {
  "use strict";
  const box = document.querySelector("[data-tz]");
  const select = box && box.querySelector("select[name=time_zone]");
  if (!select) return;
  const tools = box.querySelector("[data-tz-tools]");
  const search = box.querySelector("[data-tz-search]");
  const region = box.querySelector("[data-tz-region]");
  const none = box.querySelector("[data-tz-none]");
  const saved = select.value;

  // Every option once, with its region's label: the select is rebuilt from this list.
  const groups = [];
  Array.from(select.children).forEach((child) => {
    const label = child.tagName === "OPTGROUP" ? child.label : "";
    const options = child.tagName === "OPTGROUP" ? Array.from(child.children) : [child];
    groups.push({ label: label, options: options });
  });

  // Case and accents do not matter: "zurich" finds "Zürich", "sao" finds "Sao Paulo".
  const fold = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  groups.forEach((group) => group.options.forEach((option) => {
    option.dataset.words = fold(option.textContent + " " + option.value + " " + group.label);
  }));

  groups.forEach((group, index) => {
    if (group.label) region.add(new Option(group.label, String(index)));
  });

  function show() {
    const words = fold(search.value.trim()).split(/\s+/).filter(Boolean);
    const only = region.value === "" ? null : Number(region.value);
    const chosen = select.value;
    const matching = groups.map((group, index) => ({
      group: group,
      options: group.options.filter((option) =>
        (only === null || only === index) && words.every((word) => option.dataset.words.includes(word))),
    })).filter((found) => found.options.length);
    none.hidden = matching.length > 0;
    if (!matching.length) return; // keep the last list: the select never goes empty
    select.replaceChildren(...matching.map((found) => {
      if (!found.group.label) return found.options[0];
      const optgroup = document.createElement("optgroup");
      optgroup.label = found.group.label;
      optgroup.append(...found.options);
      return optgroup;
    }));
    const kept = matching.some((found) => found.options.some((option) => option.value === chosen));
    // What the select shows is what Save sends: the first match when the choice is filtered out.
    select.value = kept ? chosen : matching[0].options[0].value;
  }

  // A search looks in every region; a region shows all of its cities.
  search.addEventListener("input", () => { region.value = ""; show(); });
  region.addEventListener("change", () => { search.value = ""; show(); });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); select.focus(); } // choose, do not save yet
  });
  // The region of the saved zone, so that the list opens where the player lives.
  groups.forEach((group, index) => {
    if (group.label && group.options.some((option) => option.value === saved)) region.value = String(index);
  });
  tools.hidden = false;
  show();

  // The device's zone, when it differs from the saved one. Browsers name some zones by an
  // old alias ("Asia/Calcutta"): two names are the same zone when Intl resolves them alike.
  const resolve = (zone) => {
    try { return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone; } catch (error) { return ""; }
  };
  const device = resolve(Intl.DateTimeFormat().resolvedOptions().timeZone);
  if (!device || device === resolve(saved)) return;
  const every = groups.flatMap((group) => group.options);
  const match = every.find((option) => option.value === device) || every.find((option) => resolve(option.value) === device);
  if (!match) return;
  const suggest = box.querySelector("[data-tz-suggest]");
  suggest.querySelector("[data-tz-device]").textContent = match.textContent;
  suggest.hidden = false;
  suggest.addEventListener("click", () => {
    search.value = "";
    region.value = "";
    show();
    select.value = match.value;
    suggest.hidden = true;
    select.focus();
  });
})();
