// Behaviour that pages ask for with data attributes, kept out of the HTML so that the
// Content-Security-Policy can refuse every inline script and event handler.
(function () {
  "use strict";
  // <select data-autosubmit> (the language switcher, the history slider): submit on change.
  document.querySelectorAll("[data-autosubmit]").forEach((field) => {
    field.addEventListener("change", () => field.form.submit());
  });
  // <a data-close-details> inside a <details> (resigning's "Keep playing"): close the question
  // in place. Without JavaScript the link reloads the page, which closes it too.
  document.querySelectorAll("details a[data-close-details]").forEach((link) => {
    link.addEventListener("click", (event) => {
      const details = link.closest("details");
      event.preventDefault();
      details.open = false;
      details.querySelector("summary").focus();
    });
  });
  // The service worker (static/js/sw.js, at the URL base.html names): the site installs as an
  // app, and a page that cannot be reached shows the offline page. Registered once the page has
  // loaded, so that its precaching does not slow the page down; pages work the same without it.
  const worker = document.querySelector('meta[name="service-worker"]');
  if (worker && "serviceWorker" in navigator) {
    window.addEventListener("load", () => {
      navigator.serviceWorker.register(worker.content, { scope: "/" }).catch(() => {
        // Not installable here (a private window, a browser without workers): the site is the same.
      });
    });
  }
})();
