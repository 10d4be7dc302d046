"""Study Hub generation quality: the share of requested quiz questions that arrive valid,
from a fake model server replaying malformed answers and from the embedded model."""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="cognivault-bench-"))

import django  # noqa: E402

django.setup()

from django.test import override_settings  # noqa: E402

from apps.llm import prompts  # noqa: E402
from apps.study import generator  # noqa: E402
from apps.study.conftest import StudyModel  # noqa: E402
from apps.study.quizzes.generation import DIFFICULTY_HINTS, QuestionItem, same_question  # noqa: E402
from apps.study.tests.malformed import CORPUS  # noqa: E402

REQUESTED = 5
EMBEDDED_RUNS = 3
PASSAGES = [
    "Photosynthesis converts light energy into chemical energy in the chloroplasts. "
    "Chlorophyll absorbs light; water is split and oxygen is released.",
    "The Calvin cycle in the stroma fixes carbon dioxide into sugars, using ATP and NADPH "
    "made by the light-dependent reactions.",
    "Mitochondria release the energy stored in sugar through cellular respiration, "
    "producing ATP, carbon dioxide and water.",
]
SOURCES = [
    generator.Source(i + 1, 1, "biology-notes.pdf", i + 1, "", text)
    for i, text in enumerate(PASSAGES)
]


def quiz_prompt(context: str | None = None) -> str:
    return prompts.render(
        "quiz",
        count=REQUESTED,
        context=generator.context_block(SOURCES) if context is None else context,
        difficulty="beginner",
        difficulty_hint=DIFFICULTY_HINTS["beginner"],
        types="multiple choice (mcq) and true/false (true_false)",
    )


def valid_count(text: str) -> int:
    items, _ = generator.parse_items(
        text, key="questions", schema=QuestionItem, count=REQUESTED, sources=SOURCES,
        identity=same_question,
    )  # fmt: skip
    # As generate_items does: the prompt's own example handed back does not count.
    example = quiz_prompt(context="")
    return sum(not generator.copies_example(item.value, example) for item in items)


def fake_server_row() -> tuple[str, str, str, str]:
    server = StudyModel().start()
    valid = expected = 0
    try:
        with override_settings(OLLAMA_HOST=server.url, LLM_BACKEND="ollama", OLLAMA_RETRIES=0):
            for _name, text, keep in CORPUS:
                server.answer(text)
                valid += valid_count(generator.ask(quiz_prompt()).text)
                expected += keep
    finally:
        server.stop()
    asked = REQUESTED * len(CORPUS)
    return (
        f"fake server, malformed corpus ({len(CORPUS)} answers)",
        f"{valid}/{asked} = {valid / asked:.0%}",
        f"{valid}/{expected} kept of the valid ones",
        "–",
    )


def embedded_row() -> tuple[str, str, str, str]:
    counts, seconds = [], []
    with override_settings(LLM_BACKEND="embedded"):
        for _ in range(EMBEDDED_RUNS):
            start = time.perf_counter()
            try:
                # As the app asks: with the answer's JSON schema, which llama.cpp enforces.
                shape = generator.answer_schema("questions", QuestionItem, REQUESTED)
                answer = generator.ask(quiz_prompt(), json=shape)
            except generator.ModelDown as error:
                return ("embedded model", f"unavailable: {error}", "", "")
            seconds.append(time.perf_counter() - start)
            counts.append(valid_count(answer.text))
    asked = REQUESTED * EMBEDDED_RUNS
    return (
        f"embedded model ({answer.model}), {EMBEDDED_RUNS} quizzes",
        f"{sum(counts)}/{asked} = {sum(counts) / asked:.0%}",
        "per run: " + ", ".join(map(str, counts)),
        f"{statistics.median(seconds):.1f} s",
    )


def main() -> None:
    print(f"## Study Hub: valid questions of {REQUESTED} requested per quiz\n")
    print("| source of answers | valid / requested | detail | median time per quiz |")
    print("| --- | --- | --- | --- |")
    for row in (fake_server_row(), embedded_row()):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
