// The reader: opens at the page the address names (the slots are drawn in by htmx as they
// scroll into view), and the page-number form jumps there without loading the page again.
(function () {
  "use strict";

  var reader = document.querySelector(".reader[data-start]");
  var start = reader && document.getElementById(reader.dataset.start);
  // Before htmx looks at the slots, so only the pages in view are drawn.
  if (start && !location.hash) start.scrollIntoView();

  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-reader-jump]");
    var number = form && form.elements.page.value;
    var page = number && document.getElementById("page-" + number);
    if (!page) return;
    event.preventDefault();
    page.scrollIntoView();
    page.focus({ preventScroll: true });
    history.replaceState(null, "", "?page=" + number);
  });
})();
