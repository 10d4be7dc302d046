"""Study Hub generation quality: the share of requested quiz questions that arrive valid,
from a fake model server replaying malformed answers and from the embedded model; then the
extractive generators against the model path on a generated vault of 1k and 10k chunks:
items valid of those asked, answers found verbatim in the cited chunk, duplicates, and
seconds per quiz (and deck) of 10."""

import os
import random
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

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import override_settings  # noqa: E402

from apps.llm import prompts  # noqa: E402
from apps.study import generator, parsing, retrieval  # noqa: E402
from apps.study.quizzes.generation import DIFFICULTY_HINTS, QuestionItem, same_question  # noqa: E402
from apps.study.tests.helpers import StudyModel  # noqa: E402
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
    retrieval.Source(i + 1, 1, "biology-notes.pdf", i + 1, "", text)
    for i, text in enumerate(PASSAGES)
]


def quiz_prompt(context: str | None = None) -> str:
    return prompts.render(
        "quiz",
        count=REQUESTED,
        context=retrieval.context_block(SOURCES) if context is None else context,
        difficulty="beginner",
        difficulty_hint=DIFFICULTY_HINTS["beginner"],
        types="multiple choice (mcq) and true/false (true_false)",
    )


def valid_count(text: str) -> int:
    items, _ = parsing.parse_items(
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


# --- Extractive against the model path on a generated vault -----------------------------------

SIZES = [int(n) for n in os.environ.get("BENCH_STUDY_CHUNKS", "1000,10000").split(",")]
RUNS = 5
ASKED = 10
MODEL_RUNS = int(os.environ.get("BENCH_STUDY_MODEL_RUNS", "1"))
text_rng = random.Random(42)


def pseudo_word(syllables: int) -> str:
    parts = ["ka", "lor", "mi", "ten", "sul", "va", "ro", "bel", "dan", "fi", "gus", "or"]
    return "".join(text_rng.choice(parts) for _ in range(syllables))


NAMES = sorted({pseudo_word(3).capitalize() for _ in range(400)})
NOUNS = sorted({pseudo_word(2) + "ment" for _ in range(400)})
IDENTIFIERS = [f"ERR_{pseudo_word(2).upper()}_{n}" for n in range(300)]
SENTENCES = [
    "{name} is a stable {noun} that feeds the {noun2} of every {noun3}.",
    "The {noun} of {name} stops with {ident} when {number} requests wait.",
    "{name} ist ein kleines {noun}, das den {noun2} ordnet.",
    "After {number} cycles the {noun} hands its {noun2} to {name}.",
    "{ident} means that the {noun} of {name} is full.",
    "Each {noun} keeps {number} copies of the {noun2} near {name}.",
]


def chunk_text() -> str:
    picks = [text_rng.choice(SENTENCES) for _ in range(7)]
    return " ".join(
        template.format(
            name=text_rng.choice(NAMES),
            noun=text_rng.choice(NOUNS),
            noun2=text_rng.choice(NOUNS),
            noun3=text_rng.choice(NOUNS),
            ident=text_rng.choice(IDENTIFIERS),
            number=text_rng.randrange(10, 5000),
        )
        for template in picks
    )


def make_vault(owner, size: int) -> None:
    """`size` chunks in 10 documents, with unit vectors in the embedding model's space, one
    per chunk and per sentence window as ingestion stores them (the model is not run: keyword
    search is what finds these made-up words)."""
    from apps.llm import gateway
    from apps.vault.chunking import windows
    from apps.vault.models import Chunk, Document
    from apps.vault.search.models import IndexState
    from apps.vault.search.query import search as search_chunks

    Document.objects.all().delete()
    model = gateway.embedding_model()
    rng = np.random.default_rng(7)

    def vectors(text: str) -> bytes:
        rows = rng.standard_normal((1 + len(windows(text)), model.dim)).astype(np.float32)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).tobytes()

    per_document = size // 10
    for number in range(10):
        document = Document.objects.create(
            owner=owner,
            filename=f"notes-{number}.txt",
            format="txt",
            stored_name=f"bench-{number}",
            sha256=f"{number:064d}",
            status=Document.Status.DONE,
            chunk_count=per_document,
        )
        texts = [chunk_text() for _ in range(per_document)]
        Chunk.objects.bulk_create(
            Chunk(
                document=document,
                document_sha256=document.sha256,
                ordinal=i,
                text=text,
                embedding=vectors(text),
                embedding_model=model.name,
            )
            for i, text in enumerate(texts)
        )
    IndexState.bump()
    search_chunks(owner, "warm up the index", k=7)  # built once, as after ingestion


def grounded_question(question) -> bool:
    from apps.vault.models import Chunk

    texts = list(Chunk.objects.filter(pk__in=question.chunk_ids).values_list("text", flat=True))
    answer = question.options[question.correct_index]
    if question.kind == "true_false":
        return any(question.explanation in text for text in texts)
    return any(answer in text and question.explanation in text for text in texts)


def quiz_figures(owner, method: str, runs: int) -> dict:
    from apps.study.quizzes.generation import create_quiz

    seconds, asked, valid, grounded, duplicates, from_model = [], 0, 0, 0, 0, 0
    for run in range(runs):
        start = time.perf_counter()
        quiz = create_quiz(
            owner,
            num_questions=ASKED,
            difficulty=("beginner", "intermediate", "advanced")[run % 3],
            types=["mcq", "true_false"],
            method=method,
        )
        seconds.append(time.perf_counter() - start)
        questions = list(quiz.questions.all())
        asked += ASKED
        valid += len(questions)
        from_model += sum(not q.extractive for q in questions)
        grounded += sum(grounded_question(q) for q in questions)
        duplicates += len(questions) - len({" ".join(q.text.casefold().split()) for q in questions})
    return {
        "asked": asked,
        "valid": valid,
        "grounded": grounded,
        "duplicates": duplicates,
        "from_model": from_model,
        "seconds": statistics.median(seconds),
    }


def deck_figures(owner, runs: int) -> dict:
    from django.utils import timezone

    from apps.study.flashcards.generation import fill_generated_deck, start_deck

    seconds, asked, valid, grounded, duplicates = [], 0, 0, 0, 0
    for _ in range(runs):
        start = time.perf_counter()
        deck, _ = start_deck(owner, num_cards=ASKED, scope=generator.WHOLE_VAULT,
                             method="extractive")  # fmt: skip
        fill_generated_deck(deck, now=timezone.now())
        seconds.append(time.perf_counter() - start)
        cards = list(deck.cards.select_related("chunk"))
        asked += ASKED
        valid += len(cards)
        grounded += sum(card.chunk is not None and card.back in card.chunk.text for card in cards)
        duplicates += len(cards) - len({" ".join(c.front.casefold().split()) for c in cards})
    return {"asked": asked, "valid": valid, "grounded": grounded, "duplicates": duplicates,
            "seconds": statistics.median(seconds)}  # fmt: skip


def row(label: str, size: int, figures: dict, note: str = "") -> str:
    asked, valid = figures["asked"], figures["valid"]
    return (
        f"| {label} | {size:,} | {valid}/{asked} = {valid / asked:.0%} | "
        f"{figures['grounded']}/{valid} = {figures['grounded'] / max(valid, 1):.0%} | "
        f"{figures['duplicates']} | {figures['seconds']:.2f} s | {note} |"
    )


def extractive_table() -> None:
    from apps.accounts.models import User

    call_command("migrate", verbosity=0)
    owner = User.objects.filter(username="bench").first() or User.objects.create_user(
        "bench", password="x" * 16
    )
    print(f"\n## Study Hub: extractive generators and the model path, {ASKED} items asked\n")
    print("| path | chunks | valid / asked | answer verbatim in cited chunk | duplicates "
          "| median seconds per quiz (deck) of 10 | note |")  # fmt: skip
    print("| --- | ---: | --- | --- | ---: | ---: | --- |")
    with override_settings(LLM_BACKEND="embedded", EMBEDDING_BACKEND="embedded"):
        for size in SIZES:
            make_vault(owner, size)
            print(row("extractive quiz", size, quiz_figures(owner, "extractive", RUNS)))
            print(row("extractive deck", size, deck_figures(owner, RUNS)))
            if size == SIZES[0] and MODEL_RUNS:
                try:
                    figures = quiz_figures(owner, "model", MODEL_RUNS)
                except generator.GenerationError as error:
                    print(f"| model path (embedded SmolLM2) | {size:,} | failed: {error} |")
                    continue
                note = (
                    f"{figures['from_model']} from the model, "
                    f"{figures['valid'] - figures['from_model']} filled from the text"
                )
                print(row("model path (embedded SmolLM2) + fill", size, figures, note))


def main() -> None:
    print(f"## Study Hub: valid questions of {REQUESTED} requested per quiz\n")
    print("| source of answers | valid / requested | detail | median time per quiz |")
    print("| --- | --- | --- | --- |")
    for cells in (fake_server_row(), embedded_row()):
        print("| " + " | ".join(cells) + " |")
    extractive_table()


if __name__ == "__main__":
    main()
