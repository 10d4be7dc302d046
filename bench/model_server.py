"""The fake model of the chat and classroom benchmarks, a process of its own as Ollama is,
served by `python -m apps.llm.tests.fake_ollama PORT --delay 0.05 --script
bench.model_server:script`: the chat's script (think, search once, answer) with a longer answer
(or the tests' short one, BENCH_SHORT_ANSWER=1), and study material as JSON for quizzes and
decks. It notes when each chat answer call came in (BENCH_ANSWER_CALLS), so a benchmark can tell
when the model sent the answer's first token (one part's delay later)."""

import json
import os
import time

from apps.chat.tests.model_script import ANSWER, chat_script
from apps.llm.tests.fake_ollama import part, words

# About 60 words: three seconds of answer at 20 tokens/s.
LONG_ANSWER = " ".join([ANSWER] * 8)[:400]
CHAT_ANSWER = ANSWER if os.environ.get("BENCH_SHORT_ANSWER") else LONG_ANSWER
ANSWER_CALLS = os.environ.get("BENCH_ANSWER_CALLS", "")  # file: "epoch seconds<TAB>question"


def study_items(key: str, count: int) -> list[dict]:
    if key == "cards":
        return [
            {"front": f"What does organelle {n} make?", "back": "ATP, the cell's energy currency."}
            | {"source": 1}
            for n in range(count)
        ]
    return [
        {
            "type": "mcq",
            "question": f"Which organelle makes most of the cell's ATP, case {n}?",
            "options": ["Nucleus", "Mitochondrion", "Ribosome", "Golgi apparatus"],
            "correct_index": 1,
            "explanation": "Mitochondria make ATP.",
            "source": 1,
        }
        for n in range(count)
    ]


def script(body: dict) -> list[dict]:
    schema = body.get("format")
    if isinstance(schema, dict):  # a study generation: its answer's JSON schema
        key = schema["required"][0]
        count = schema["properties"][key].get("maxItems", 5)
        text = json.dumps({key: study_items(key, count)})
        return [part(text[i : i + 40]) for i in range(0, len(text), 40)]  # ~40 characters a token
    messages = body.get("messages", [])
    if messages and messages[-1].get("role") == "tool":
        question = next(m["content"] for m in messages if m["role"] == "user").split("\n\n")[0]
        if ANSWER_CALLS:
            with open(ANSWER_CALLS, "a") as log:
                log.write(f"{time.time()}\t{question}\n")
        return words(CHAT_ANSWER)
    return chat_script(body)
