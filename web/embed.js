// The calculator's host script: load it once on a page (in VitePress through
// `head` in .vitepress/config) and every <iframe data-vram-calculator> on it
// takes the height of the calculator inside, also when the iframe appears
// after a client-side navigation, and also when the calculator grows later.
//
// Protocol, version 1 (README, "Embedding"): the calculator posts
//   { type: "vram-calculator:height", v: 1, height }   (CSS pixels)
// to the window that frames it, whenever its height changes; the host may post
//   { type: "vram-calculator:measure", v: 1 }
// to the calculator to have it say its height again.
(function () {
  "use strict";
  if (window.vramCalculatorEmbed) return; // loaded twice: the first one serves
  var SELECTOR = "iframe[data-vram-calculator]";

  function frames() {
    return document.querySelectorAll ? document.querySelectorAll(SELECTOR) : [];
  }

  function originOf(frame) {
    try {
      return new URL(frame.getAttribute("src") || "", location.href).origin;
    } catch (e) {
      return null;
    }
  }

  // Asks each calculator for its height: one that loaded before this script
  // listened, or after a client-side navigation put it on the page.
  function measure(frame) {
    var origin = originOf(frame);
    if (frame.contentWindow && origin && origin !== "null") {
      frame.contentWindow.postMessage({ type: "vram-calculator:measure", v: 1 }, origin);
    }
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "vram-calculator:height" || typeof data.height !== "number") return;
    var list = frames();
    for (var i = 0; i < list.length; i++) {
      var frame = list[i];
      if (frame.contentWindow === event.source && originOf(frame) === event.origin) {
        frame.style.height = Math.max(0, Math.ceil(data.height)) + "px";
        return;
      }
    }
  });

  function measureAll() {
    var list = frames();
    for (var i = 0; i < list.length; i++) {
      var frame = list[i];
      if (!frame.vramCalculatorSeen) {
        frame.vramCalculatorSeen = true;
        frame.addEventListener("load", function (event) { measure(event.target); });
      }
      measure(frame);
    }
  }

  measureAll();
  if (typeof MutationObserver === "function" && document.documentElement) {
    new MutationObserver(measureAll).observe(document.documentElement, { childList: true, subtree: true });
  }
  window.vramCalculatorEmbed = { version: 1, measure: measureAll };
})();
