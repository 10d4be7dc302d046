"""What bench_classroom.py prints: each run's report, with its targets, and the spread of the
headline figures over the runs."""

import math

import psutil

from bench.classroom_app import (
    CHAT_CONCURRENCY,
    CHAT_PROCESSES,
    CLASSES,
    LOGIN_SECONDS,
    MODEL_DELAY,
    NOT_PAGES,
    QUESTIONS,
    RAMP,
    SCHOOL,
    SECONDS,
    STUDENTS,
    TARGETS,
    WEB_PROCESSES,
    App,
    percentile,
)


def page_times(results: dict, key: str = "times") -> dict[str, list[float]]:
    """The pages' times by request name (of the whole run, or of the login rush: "rush")."""
    return {
        name: values
        for name, values in results[key].items()
        if not name.startswith("API") and name not in NOT_PAGES
    }


def every_page(results: dict, key: str = "times") -> list[float]:
    """The times of all pages, whatever their name."""
    return [value for values in page_times(results, key).values() for value in values]


def report(app: App, database: str, results: dict, stages, cpu: dict, wall: float) -> None:
    times, errors = results["times"], results["errors"]
    pages, all_pages = page_times(results), every_page(results)
    count = CLASSES * STUDENTS
    print(
        f"### Classroom on {database}: {count} students ({CLASSES} class{'es' if SCHOOL else ''}) "
        f"logging in within {LOGIN_SECONDS:.0f} s, then {SECONDS:.0f} s of lesson, a page every "
        f"1–3 s, {QUESTIONS} questions each, a quiz and a deck, the class quiz (fake model at "
        f"{1 / MODEL_DELAY:.0f} tokens/s, {WEB_PROCESSES} web processes, {CHAT_PROCESSES} chat "
        f"workers of {CHAT_CONCURRENCY} threads)"
    )
    print()
    print("| request | count | p50 | p95 | p99 | errors |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, values in sorted(times.items(), key=lambda row: (row[0] not in pages, row)):
        print(
            f"| {name} | {len(values)} | {percentile(values, 0.5):.0f} ms "
            f"| {percentile(values, 0.95):.0f} ms | {percentile(values, 0.99):.0f} ms "
            f"| {errors.get(name, 0)} |"
        )
    print(
        f"| **every page** | {len(all_pages)} | {percentile(all_pages, 0.5):.0f} ms "
        f"| **{percentile(all_pages, 0.95):.0f} ms** | {percentile(all_pages, 0.99):.0f} ms "
        f"| {sum(errors.get(name, 0) for name in pages)} |"
    )
    print()
    print("| measure | result | target |")
    print("| --- | --- | --- |")
    for method in ("password", "badge"):
        print(login_row(results, method))
    p95, target = percentile(all_pages, 0.95), TARGETS["page p95"]
    print(f"| page p95 (the first pages after login too) | {p95:.0f} ms | {target} |")
    rush = every_page(results, "rush")
    print(
        f"| of which while the class logs in (the first {LOGIN_SECONDS:.0f} s), p95 "
        f"| {percentile(rush, 0.95):.0f} ms ({len(rush)} pages) | |"
    )
    for row in lesson_rows(app, results):
        print(row)
    print(ramp_row(stages))
    print()
    print_ramp(stages)
    print_cpu(cpu, wall)
    for line in results["dropped"][:5]:
        print(f"- dropped: {line}")
    for line in results["refused"][:5]:
        print(f"- refused: {line}")


def login_row(results: dict, method: str) -> str:
    values = results["logins"].get(method, [])
    failed = results["login_failures"].get(method, 0)
    target = TARGETS["badge login p95"] if method == "badge" else ""
    what = {"password": "the login form and its POST", "badge": "the card's page and its button"}
    return (
        f"| login by {method} ({what[method]}), p50 / p95 | {percentile(values, 0.5):.0f} ms / "
        f"{percentile(values, 0.95):.0f} ms ({len(values)} logged in, {failed} failed) | {target} |"
    )


def first_fragments(app: App, results: dict) -> list[float]:
    """ms from the model's first token of each answer to its first words on the socket."""
    calls = app.answer_call_times()
    return [
        (q["first"] - calls[q["text"]]) * 1000
        for q in results["questions"]
        if q["first"] is not None and q["text"] in calls
    ]


def lost_answers(results: dict) -> list[dict]:
    """The questions whose final answer never reached the socket."""
    return [q for q in results["questions"] if q["ended"] == ""]


def lesson_rows(app: App, results: dict) -> list[str]:
    questions = results["questions"]
    firsts = first_fragments(app, results)
    saved = {int(answer): status for answer, status in results["saved"].items()}
    done_on_socket = sum(q["ended"] == "done" for q in questions)
    lost = lost_answers(results)
    not_done = len(questions) - done_on_socket - len(lost)
    lost_saved = sum(saved.get(q["answer_id"]) == "done" for q in lost if q["answer_id"])
    study = ", ".join(f"{n} {key}" for key, n in sorted(results["study"].items())) or "none"
    attempts = results["attempts"]
    handed_in = attempts.get("201", 0)
    others = ", ".join(
        f"{n} × {status}" for status, n in sorted(attempts.items()) if status != "201"
    )
    return [
        f"| sockets dropped | {len(results['dropped'])} of {results['sockets']} "
        f"| {TARGETS['sockets dropped']} |",
        f"| socket handshakes refused or reset (tried again, as the page does) "
        f"| {len(results['refused'])} | |",
        f"| answers lost (asked, the final answer never on the socket) | {len(lost)} of "
        f"{len(questions)} ({done_on_socket} done on the socket, {not_done} failed or stopped; "
        f"of the lost, {lost_saved} done in the database) | {TARGETS['answers lost']} |",
        f"| first fragment after the model's first token, p50 / p95 "
        f"| {percentile(firsts, 0.5):.0f} ms / {percentile(firsts, 0.95):.0f} ms "
        f"| p95 {TARGETS['first fragment p95']} |",
        f"| study items | {study} | all ready |",
        f"| class quiz attempts handed in | {handed_in} of {sum(attempts.values())}"
        f"{f' ({others})' if others else ''} | all |",
        f'| "database is locked" in the logs | {app.count_in_logs("database is locked")} '
        f"| {TARGETS['database is locked']} |",
        # Redis cuts off a subscriber whose unread pushes pass its output buffer's limit.
        f"| web processes cut off by Redis for falling behind on pushes "
        f"| {app.count_in_logs('output buffer limits')} | 0 |",
    ]


def crossing(stages: list) -> tuple | None:
    """The ramp's first stage whose page p95 passed the limit, if any."""
    return next((stage for stage in stages if stage[2] > RAMP["limit_ms"]), None)


def ramp_row(stages: list) -> str:
    limit = RAMP["limit_ms"]
    crossed = crossing(stages)
    if crossed:
        line = f"{crossed[1]:.0f} pages/s (asked for {crossed[0]:.0f})"
    else:
        line = f"not crossed up to {stages[-1][1]:.0f} pages/s" if stages else "not run"
    return f"| page rate at which p95 crosses {limit} ms | {line} | |"


def headline(app: App, results: dict, stages: list) -> dict[str, float]:
    """The figures the targets are about, for the spread over the runs."""
    figures = {
        "page p95 (ms)": percentile(every_page(results), 0.95),
        "of which while the class logs in, p95 (ms)": percentile(every_page(results, "rush"), 0.95),
        "login by badge, p95 (ms)": percentile(results["logins"].get("badge", []), 0.95),
        "login by password, p95 (ms)": percentile(results["logins"].get("password", []), 0.95),
        "first fragment p95 (ms)": percentile(first_fragments(app, results), 0.95),
        "answers lost": len(lost_answers(results)),
        "sockets dropped": len(results["dropped"]),
        '"database is locked"': app.count_in_logs("database is locked"),
    }
    if stages:
        crossed = crossing(stages)
        # Not crossed: the highest rate served, as "up to" in the run's own report.
        rate = crossed[1] if crossed else stages[-1][1]
        figures["pages/s where p95 crosses 500 ms (or the most served)"] = rate
    return figures


SPREAD_TARGETS = {
    "page p95 (ms)": TARGETS["page p95"],
    "login by badge, p95 (ms)": TARGETS["badge login p95"],
    "first fragment p95 (ms)": TARGETS["first fragment p95"],
    "answers lost": TARGETS["answers lost"],
    "sockets dropped": TARGETS["sockets dropped"],
    '"database is locked"': TARGETS["database is locked"],
}


def print_spread(database: str, runs: list[dict[str, float]]) -> None:
    """Each headline figure of every run, and its lowest and highest."""
    print(f"### Classroom on {database}: the spread over {len(runs)} runs")
    print()
    numbers = " | ".join(f"run {number}" for number in range(1, len(runs) + 1))
    print(f"| measure | {numbers} | lowest–highest | target |")
    print("| --- |" + " --- |" * (len(runs) + 2))
    for measure in runs[0]:
        values = [run[measure] for run in runs]
        known = [value for value in values if not math.isnan(value)]  # nan: none measured
        each = " | ".join("–" if math.isnan(value) else f"{value:.0f}" for value in values)
        spread = f"{min(known):.0f}–{max(known):.0f}" if known else "–"
        print(f"| {measure} | {each} | {spread} | {SPREAD_TARGETS.get(measure, '')} |")
    print()


def print_ramp(stages: list) -> None:
    if not stages:
        return
    print(f"Ramp ({RAMP['users']} logged-in users, pages only, {RAMP['seconds']:.0f} s a stage):")
    print()
    print("| pages/s asked | pages/s served | p95 | errors |")
    print("| --- | --- | --- | --- |")
    for target, achieved, p95, errors in stages:
        print(f"| {target:.0f} | {achieved:.1f} | {p95:.0f} ms | {errors} |")
    print()


def print_cpu(cpu: dict[str, float], wall: float) -> None:
    cores = psutil.cpu_count()
    print(f"CPU during the login rush and the lesson ({wall:.0f} s, {cores} cores):")
    print()
    print("| process | CPU seconds | share of the machine |")
    print("| --- | ---: | ---: |")
    for name, seconds in sorted(cpu.items(), key=lambda row: -row[1]):
        print(f"| {name} | {seconds:.1f} | {seconds / (wall * cores):.0%} |")
    print()
