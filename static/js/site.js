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
})();
