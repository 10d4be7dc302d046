// Light/dark theme: follows the system until the person picks one, then remembers it.
(function () {
  var saved = localStorage.getItem("theme");
  if (saved) document.documentElement.dataset.theme = saved;
  document.addEventListener("click", function (event) {
    if (!event.target.closest("[data-theme-toggle]")) return;
    var dark = document.documentElement.dataset.theme
      ? document.documentElement.dataset.theme === "dark"
      : matchMedia("(prefers-color-scheme: dark)").matches;
    var next = dark ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem("theme", next);
  });
})();
