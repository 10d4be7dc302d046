// Flip the flashcard (click or Space) and answer it with the keyboard (G got it, R review).
// The answer buttons are plain htmx form buttons; this only adds the flip and the keys.
(function () {
  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch (e) { return ""; }
  }

  function flip(card) {
    const flipped = card.classList.toggle("flipped");
    card.setAttribute("aria-pressed", String(flipped));
    card.querySelector(".flashcard-back").setAttribute("aria-hidden", String(!flipped));
    if (flipped && !card.dataset.counted) {
      card.dataset.counted = "1";
      fetch(card.dataset.flipUrl, { method: "POST", headers: { "X-CSRFToken": csrfToken() } });
    }
  }

  document.addEventListener("click", function (event) {
    const card = event.target.closest(".flashcard");
    if (card) { flip(card); return; }
    if (event.target.closest("[data-flip]")) {
      const current = document.querySelector("#study-card .flashcard");
      if (current) flip(current);
    }
  });

  // After an answer the next card arrives by htmx: give it the focus for the keyboard, or,
  // once none is left, the heading saying so (the answered card's button is gone).
  document.addEventListener("htmx:afterSwap", function () {
    const next = document.querySelector("#study-card .flashcard, #study-card h2");
    if (next) next.focus();
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select")) return;
    const card = document.querySelector("#study-card .flashcard");
    if (!card) return;
    const key = event.key.toLowerCase();
    // Space and Enter on a focused button or link press it; elsewhere Space turns the card.
    if (key === " " && event.target.closest("button, a, summary")) return;
    if (key === " " || key === "enter" && event.target === card) {
      event.preventDefault();
      flip(card);
    } else if (key === "g" || key === "arrowright" || key === "r" || key === "arrowleft") {
      const which = key === "g" || key === "arrowright" ? "g" : "r";
      const button = document.querySelector('#study-card [data-key="' + which + '"]');
      if (button) { event.preventDefault(); button.click(); }
    }
  });
})();
