"""The embedded backend for real: SmolLM2 on llama.cpp, USE embeddings, faster-whisper."""

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from apps.llm import gateway
from apps.llm.backends.embedded import smollm2_path
from apps.llm.backends.speech import WHISPER_SIZE, assemble_whisper
from apps.llm.jsonparse import extract_json

pytestmark = pytest.mark.embedded


@pytest.fixture(autouse=True)
def _embedded(settings):
    settings.LLM_BACKEND = "embedded"
    settings.EMBEDDING_BACKEND = "embedded"


def test_the_installed_llama_binding_loads_the_model_and_generates_on_this_cpu():
    """In a child process, so that a crash (a native build segfaults on CPUs with AMX) fails
    this test instead of ending the run."""
    script = (
        "import sys, llama_cpp\n"
        "model = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, verbose=False)\n"
        "messages = [{'role': 'user', 'content': 'Name a colour.'}]\n"
        "answer = model.create_chat_completion(messages, max_tokens=8, temperature=0.0)\n"
        "print(answer['usage']['completion_tokens'], answer['choices'][0]['message']['content'])\n"
    )

    ran = subprocess.run(
        [sys.executable, "-c", script, str(smollm2_path())], capture_output=True, text=True
    )

    assert ran.returncode == 0, ran.stderr[-2000:]
    produced, text = ran.stdout.split(" ", 1)
    assert int(produced) > 0 and text.strip()


def test_a_json_answer_parses():
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"],
    }
    question = [{"role": "user", "content": "Describe a person called Ann who is 31 years old."}]

    events = list(gateway.chat(question, json=schema, options={"seed": 1}))

    answer = extract_json("".join(e.text for e in events if isinstance(e, gateway.Text)))
    assert isinstance(answer, dict)
    assert isinstance(answer["name"], str)
    assert isinstance(answer["age"], int)
    assert events[-1].backend == "embedded"
    assert events[-1].completion_tokens > 0


def test_it_streams_text_and_never_thinks():
    question = [{"role": "user", "content": "Name a colour."}]

    events = list(gateway.chat(question, think=True, options={"num_predict": 16, "seed": 1}))

    assert not any(isinstance(e, gateway.Thinking) for e in events)
    assert any(isinstance(e, gateway.Text) and e.text for e in events)
    assert isinstance(events[-1], gateway.Done)


def test_tools_go_through_a_planning_step_that_names_a_real_tool_or_answers():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "calculator",
                "description": "Evaluate an arithmetic expression",
                "parameters": {
                    "type": "object",
                    "properties": {"expression": {"type": "string"}},
                    "required": ["expression"],
                },
            },
        }
    ]
    question = [{"role": "user", "content": "What is 17 * 23?"}]

    events = list(gateway.chat(question, tools=tools, options={"seed": 1, "num_predict": 48}))

    calls = [e for e in events if isinstance(e, gateway.ToolCall)]
    texts = [e for e in events if isinstance(e, gateway.Text)]
    assert isinstance(events[-1], gateway.Done)
    assert bool(calls) != bool(texts)
    assert all(c.name == "calculator" and set(c.arguments) <= {"expression"} for c in calls)


def test_a_german_paraphrase_embeds_closer_than_an_unrelated_sentence():
    vectors = gateway.embed(
        [
            "Die Katze schläft auf dem Sofa.",
            "Auf der Couch liegt eine schlafende Katze.",
            "Die Steuererklärung muss bis Juli abgegeben werden.",
        ]
    )

    assert vectors.shape == (3, 512)
    assert vectors.dtype == np.float32
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    assert gateway.embedding_model() == gateway.EmbeddingModel("embedded/use-multilingual-v3", 512)


def test_spoken_english_transcribes_to_the_words(tmp_path):
    assert shutil.which("espeak-ng"), "espeak-ng is installed by `make setup`"
    wav = tmp_path / "fox.wav"
    sentence = "The quick brown fox jumps over the lazy dog."
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "140", "-w", str(wav), sentence], check=True)

    # The gateway takes samples (the app decodes a recording in the reading sandbox); this
    # trusted file is decoded here by faster-whisper's own decoder, imported only by this test.
    from faster_whisper import decode_audio

    samples = decode_audio(str(wav))
    heard = set(re.findall(r"[a-z]+", gateway.transcribe(samples).lower()))

    # Whisper's words differ between CPUs ("the quick round fox" on one): most of them, not all.
    words = set(re.findall(r"[a-z]+", sentence.lower()))
    assert len(words & heard) >= len(words) - 2, heard
    assert gateway.speech_available() is True


def test_the_whisper_model_is_assembled_in_data_dir_and_rebuilt_when_damaged(settings):
    folder = assemble_whisper()

    assert (folder / "model.bin").stat().st_size == WHISPER_SIZE
    assert folder.is_relative_to(settings.DATA_DIR)

    (folder / "model.bin").write_bytes(b"truncated")
    assemble_whisper()

    assert (folder / "model.bin").stat().st_size == WHISPER_SIZE


def test_health_reports_the_embedded_models_without_ollama(settings):
    report = gateway.health()

    assert report["chat"]["backend"] == "embedded"
    assert report["chat"]["model"] == "SmolLM2-135M-Instruct"
    assert report["chat"]["ready"] is True
    assert report["chat"]["limits"][:2] == ["no thinking mode", "English only"]
    assert report["embeddings"]["model"] == "use-multilingual-v3"
    assert report["speech"]["ready"] is True
