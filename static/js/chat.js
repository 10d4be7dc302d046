// Chat: small progressive enhancements only. Enter sends, the focus survives the socket's
// swaps, the conversation follows new text, a [n] marker opens its source, the microphone
// records audio for speech-to-text, and the composer's folded line names the scope chosen.
// Everything else is htmx.
(function () {
  "use strict";

  // Enter sends the question; Shift+Enter makes a new line.
  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (field.id === "question" && event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      field.form.requestSubmit();
    }
  });

  // A frame from the socket replaces fragments out of band (the question box, emptied once
  // the question is taken): the focus goes back to the field of the same id, as htmx does for
  // its own swaps, so the keyboard stays where the next question is typed.
  var focusedId = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    focusedId = document.activeElement && document.activeElement.id;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var field = focusedId && document.getElementById(focusedId);
    var lost = !document.activeElement || document.activeElement === document.body;
    if (field && lost) {
      field.focus({ preventScroll: true });
    }
  });

  // Follow the answer while it streams, unless the reader scrolled up to read.
  var nearBottom = true;
  window.addEventListener("scroll", function () {
    nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 120;
  }, { passive: true });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (nearBottom) window.scrollTo(0, document.body.scrollHeight);
  });

  // A [n] marker in an answer jumps to its source, a <details>: opened, with its link to the
  // document at the cited page.
  document.addEventListener("click", function (event) {
    var marker = event.target.closest("a[href^='#source-']");
    var source = marker && document.getElementById(marker.getAttribute("href").slice(1));
    if (source && source.tagName === "DETAILS") source.open = true;
  });

  function csrfToken() {
    var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    return headers["X-CSRFToken"] || "";
  }

  // The recording goes to the API without waiting for its text: the jobs worker transcribes
  // it, and the status fragment (chat/thread.html#transcription) shows how far it got.
  function transcribe(box, blob, name) {
    var status = box.querySelector("[data-voice-status]");
    var data = new FormData();
    data.append("file", blob, name);
    status.textContent = "Sending the recording…";
    fetch(box.dataset.transcribeUrl + "?wait=0", {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (result) {
      if (!result.ok) { status.textContent = result.body.detail || "Could not transcribe."; return; }
      var url = box.dataset.transcriptionUrl.replace(/0\/$/, result.body.id + "/");
      htmx.ajax("GET", url, { target: status, swap: "innerHTML" });
    }).catch(function () { status.textContent = "Could not reach the server."; });
  }

  // A finished transcription's text goes into the question box, once.
  document.addEventListener("htmx:load", function (event) {
    var done = event.detail.elt;
    if (!done.matches || !done.matches("[data-transcript]")) return;
    var field = document.getElementById("question");
    field.value = (field.value ? field.value + " " : "") + done.dataset.transcript;
    done.removeAttribute("data-transcript");
    field.focus();
  });

  var recorder = null;
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-record]");
    if (!button) return;
    var box = button.closest("[data-transcribe-url]");
    var label = button.querySelector("[data-record-label]");  // beside the microphone icon
    if (recorder && recorder.state === "recording") { recorder.stop(); return; }
    if (!navigator.mediaDevices || !window.MediaRecorder) {
      box.querySelector("[data-voice-status]").textContent =
        "Recording needs HTTPS or localhost; upload an audio file instead.";
      return;
    }
    navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
      var pieces = [];
      recorder = new MediaRecorder(stream);
      recorder.ondataavailable = function (e) { pieces.push(e.data); };
      recorder.onstop = function () {
        stream.getTracks().forEach(function (track) { track.stop(); });
        label.textContent = "Record";
        transcribe(box, new Blob(pieces, { type: recorder.mimeType }), "recording.webm");
      };
      recorder.start();
      label.textContent = "Stop recording";
    }).catch(function () {
      box.querySelector("[data-voice-status]").textContent = "The microphone is not available.";
    });
  });

  // The composer's folded line names the scope chosen (categories and files), so it shows
  // while the pickers are folded away.
  function describeScope() {
    var summary = document.getElementById("scope-summary");
    if (!summary) return;
    var chosen = document.querySelectorAll("#composer select[form='ask-form'] option:checked");
    var names = Array.prototype.map.call(chosen, function (option) {
      return option.textContent.trim();
    });
    summary.textContent = "Scope: " + (names.length ? names.join(", ") : "the whole vault");
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[form='ask-form']")) describeScope();
  });
  describeScope();  // a selection the browser kept from an earlier visit

  // A file is uploaded as soon as it is picked: empty the picker, so that the same file can
  // be attached again to a later question.
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.target.id === "attach-form") event.target.reset();
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches("[data-audio-file]") || !input.files.length) return;
    transcribe(input.closest("[data-transcribe-url]"), input.files[0], input.files[0].name);
    input.value = "";
  });
})();
