// Behaviour that pages ask for with data attributes, kept out of the HTML so that the
// Content-Security-Policy can refuse every inline script and event handler.
(function () {
  "use strict";
  // <select data-autosubmit> (the language switcher, the history slider): submit on change.
  document.querySelectorAll("[data-autosubmit]").forEach((field) => {
    field.addEventListener("change", () => field.form.submit());
  });
  // <form data-confirm="question"> (resigning): ask first.
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
})();
