// Tells the server this browser's time zone (e.g. "Europe/Berlin") so days, streaks and
// times are shown in local time. The server checks the name against the tz database.
(function () {
  // IANA names hold only cookie-safe characters (letters, digits, / _ + -).
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) document.cookie = "tz=" + zone + ";path=/;max-age=31536000;samesite=lax";
  } catch (e) { /* an old browser: the server falls back to the last zone it knew, or UTC */ }
})();
