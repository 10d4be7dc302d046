// Small behaviours declared by data attributes, instead of inline handlers the
// Content-Security-Policy forbids (script-src 'self', no eval):
//   data-confirm="Question?"    on a form: asks before it is submitted
//   data-print                  on a button: prints the page
//   data-remove-parent          on a button: removes its parent element
//   data-reset-on-success       on an htmx form: cleared after a successful request
//   data-max-files="100"        on a file input: refuses picking more files than that
//   data-back                   on a link: goes back in the history when there is one
//   data-scroll-into-view       on swapped-in content: scrolled into view (messages below the
//                               fold of a phone, under the form that caused them)
// and a failed htmx request that swaps nothing is reported in #page-alerts.
(function () {
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.closest("[data-print]")) {
      window.print();
    } else if (target.closest("[data-remove-parent]")) {
      target.closest("[data-remove-parent]").parentElement.remove();
    } else if (target.closest("a[data-back]") && history.length > 1) {
      event.preventDefault();
      history.back();
    }
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches("input[type=file][data-max-files]")) return;
    var limit = Number(input.dataset.maxFiles);
    input.setCustomValidity(
      input.files.length > limit ? "At most " + limit + " files at once." : ""
    );
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (event.detail.successful && elt.matches && elt.matches("form[data-reset-on-success]")) {
      elt.reset();
    }
    var stale = document.querySelector("#page-alerts [data-request-failed]");
    if (event.detail.successful && stale) stale.remove();
    // The heatmap marks the day whose detail was just swapped in.
    if (event.detail.successful && elt.matches && elt.matches(".heatmap a.cell")) {
      document.querySelectorAll(".heatmap a.cell.selected").forEach(function (cell) {
        cell.classList.remove("selected");
        cell.removeAttribute("aria-current");
      });
      elt.classList.add("selected");
      elt.setAttribute("aria-current", "date");
    }
  });

  document.addEventListener("htmx:load", function (event) {
    var elt = event.detail.elt;
    if (elt === document.body) return;  // the page itself, not a swap
    var target = elt.matches("[data-scroll-into-view]")
      ? elt : elt.querySelector("[data-scroll-into-view]");
    if (target) target.scrollIntoView({ block: "nearest" });
  });

  // A refusal htmx does not swap (base.html's responseHandling swaps only the statuses that
  // come with a fragment saying why) would leave a button that seems dead: say so above the
  // page. What was typed stays in its field.
  var SWAPPED = [400, 409, 413, 422, 429];
  function requestFailed(text) {
    var box = document.getElementById("page-alerts");
    if (!box) return;
    var alert = document.createElement("p");
    alert.className = "error";
    alert.setAttribute("role", "alert");
    alert.dataset.requestFailed = "";
    alert.textContent = text;
    box.replaceChildren(alert);
    alert.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    if (SWAPPED.indexOf(status) !== -1) return;
    requestFailed(status === 403
      ? "The server refused this: the page is out of date (after logging in again, for " +
        "instance). Copy what you typed, then reload the page."
      : "Something went wrong on the server (error " + status + "). Try again, or reload the page.");
  });
  document.addEventListener("htmx:sendError", function () {
    requestFailed("The server could not be reached. Check the connection, then try again.");
  });
})();
