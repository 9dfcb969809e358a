// The profile's "Turn on notifications on this device": asks the browser's permission,
// subscribes with the site's VAPID public key (data-push-key) through the service worker that
// site.js registers, and POSTs the PushSubscription to the API (data-push-url) with the page's
// CSRF token; "Turn off" unsubscribes and DELETEs it. Without JavaScript, or without push in the
// browser, the buttons stay hidden and the page says why; every notice then goes by email.
(function () {
  "use strict";
  const box = document.querySelector("[data-push]");
  if (!box || !box.dataset.pushKey) return;
  // Each button sits in a box of its own that is hidden or shown (a .button's display would
  // override its own hidden attribute).
  const onRow = box.querySelector("[data-push-on]");
  const offRow = box.querySelector("[data-push-off]");
  const on = onRow.querySelector("button");
  const off = offRow.querySelector("button");
  // The page's CSRF token: the box's own (data-csrf), else that of the form around it.
  const form = box.closest("form");
  const field = form ? form.querySelector("[name=csrfmiddlewaretoken]") : null;
  const csrf = box.dataset.csrf || (field ? field.value : "");

  function show(state) {
    box.querySelectorAll("[data-push-state]").forEach((p) => {
      p.hidden = p.dataset.pushState !== state;
    });
    onRow.hidden = state === "on" || state === "unsupported" || state === "denied";
    offRow.hidden = state !== "on";
  }

  function keyBytes(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  function send(method, subscription) {
    return fetch(box.dataset.pushUrl, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(subscription.toJSON()),
    }).then((response) => {
      if (!response.ok && !(method === "DELETE" && response.status === 404)) {
        throw new Error("the server answered " + response.status);
      }
    });
  }

  async function registration() {
    // site.js registers the worker; wait for it, or register it here if it has not yet.
    const existing = await navigator.serviceWorker.getRegistration("/");
    if (!existing) {
      const meta = document.querySelector("meta[name=service-worker]");
      await navigator.serviceWorker.register(meta ? meta.content : "/sw.js", { scope: "/" });
    }
    return navigator.serviceWorker.ready;
  }

  async function turnOn() {
    on.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        show(permission === "denied" ? "denied" : "off");
        return;
      }
      const worker = await registration();
      const subscription = await worker.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(box.dataset.pushKey),
      });
      await send("POST", subscription);
      show("on");
    } catch (error) {
      show("failed");
    } finally {
      on.disabled = false;
    }
  }

  async function turnOff() {
    off.disabled = true;
    try {
      const worker = await registration();
      const subscription = await worker.pushManager.getSubscription();
      if (subscription) {
        await send("DELETE", subscription);
        await subscription.unsubscribe();
      }
      show("off");
    } catch (error) {
      show("failed");
    } finally {
      off.disabled = false;
    }
  }

  async function start() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
      show("unsupported");
      return;
    }
    if (Notification.permission === "denied") {
      show("denied");
      return;
    }
    on.addEventListener("click", turnOn);
    off.addEventListener("click", turnOff);
    try {
      const existing = await navigator.serviceWorker.getRegistration("/");
      const subscription = existing ? await existing.pushManager.getSubscription() : null;
      if (subscription && Notification.permission === "granted") {
        await send("POST", subscription); // the server may have forgotten it (a 410): keep it known
        show("on");
      } else {
        show("off");
      }
    } catch (error) {
      show("off");
    }
  }

  start();
})();
