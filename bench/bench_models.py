"""Model backends: tokens/s and time to first token for a ~1,500-token RAG prompt, and
embedding chunks/s, on the embedded backend and (when it answers) on Ollama."""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

from django.test import override_settings  # noqa: E402

from apps.llm import gateway  # noqa: E402

RUNS = 3

PASSAGE = (
    "Photosynthesis converts light energy into chemical energy. In the light-dependent "
    "reactions, chlorophyll in the thylakoid membranes absorbs photons, water is split, "
    "oxygen is released and ATP and NADPH are formed. The Calvin cycle in the stroma then "
    "fixes carbon dioxide into sugars using that ATP and NADPH. "
)


def rag_messages(run: int, chunks: int = 7) -> list[dict]:
    # A different first line per run defeats llama.cpp's prompt-prefix cache.
    context = "\n\n".join(
        f"[Source {i + 1}: biology-notes.pdf, page {i + 3}]\n" + PASSAGE * 3 for i in range(chunks)
    )
    return [
        {
            "role": "system",
            "content": f"Benchmark run {run}. Answer only from the sources and cite them.\n\n"
            + context,
        },
        {"role": "user", "content": "Explain how the Calvin cycle depends on the light reactions."},
    ]


def measure_chat(run: int) -> tuple[int, float, float]:
    """(prompt tokens, seconds to first token, generated tokens per second)."""
    start = time.perf_counter()
    first = None
    done = None
    for event in gateway.chat(rag_messages(run), options={"num_predict": 128, "seed": run}):
        if isinstance(event, gateway.Text) and first is None:
            first = time.perf_counter()
        elif isinstance(event, gateway.Done):
            done = event
    end = time.perf_counter()
    first = first or end
    rate = (done.completion_tokens - 1) / (end - first) if done.completion_tokens > 1 else 0.0
    return done.prompt_tokens, first - start, rate


def measure_embedding(texts: list[str]) -> float:
    start = time.perf_counter()
    gateway.embed(texts)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    chunks = [f"Chunk {i}. " + PASSAGE * 3 for i in range(100)]
    backends = ["embedded"]
    with override_settings(LLM_BACKEND="ollama"):
        probe = gateway.health()["ollama"]
    if probe["reachable"]:
        backends.append("ollama")
    rows = []
    for backend in backends:
        with override_settings(LLM_BACKEND=backend, EMBEDDING_BACKEND=backend):
            try:
                measure_chat(0)  # loads the model; not timed
                chat = [measure_chat(run) for run in range(1, RUNS + 1)]
                gateway.embed(chunks[:5])
                embeds = [measure_embedding(chunks) for _ in range(RUNS)]
                model = gateway.current_backend().model
                embedding = gateway.embedding_model().name
            except (gateway.ModelUnavailable, gateway.ModelError) as error:
                rows.append(f"| {backend} | skipped: {error} | | | | | |")
                continue
        rows.append(
            f"| {backend} | {model} | {statistics.median(c[0] for c in chat):.0f} "
            f"| {statistics.median(c[1] for c in chat):.2f} "
            f"| {statistics.median(c[2] for c in chat):.1f} | {embedding} "
            f"| {statistics.median(embeds):.1f} |"
        )
    print(f"## Models (medians of {RUNS} runs, threads: {gateway.threads()})\n")
    print(
        "| backend | chat model | prompt tokens | first token s | tokens/s | embedding model "
        "| chunks/s |"
    )
    print("| --- | --- | ---: | ---: | ---: | --- | ---: |")
    print("\n".join(rows))
    if not probe["reachable"]:
        print(f"| ollama | skipped: {probe['detail']} | | | | | |")
    print(f"\nEmbedding: 100 chunks of ~{len(chunks[0])} characters per run.")


if __name__ == "__main__":
    main()
