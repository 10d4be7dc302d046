import dataclasses
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from apps.llm import gateway
from apps.llm.backends import ollama
from apps.llm.gateway import Done, ModelError, ModelUnavailable, Text, Thinking, ToolCall
from apps.llm.tests.fake_ollama import part
from tests.helpers.services import wait_until

QUESTION = [{"role": "user", "content": "What is in my notes?"}]


def test_it_streams_the_answer_in_parts_and_ends_with_token_counts(fake_ollama):
    events = list(gateway.chat(QUESTION))

    assert events[:2] == [Text("Hello"), Text(" world")]
    assert events[-1] == Done("ollama", "gemma4:e4b", 21, 2)
    assert fake_ollama.requests[-1][1]["stream"] is True


def test_thinking_arrives_before_the_answer_when_asked_for(fake_ollama):
    fake_ollama.parts = [part(thinking="Let me see."), part(thinking=" Notes."), part("Yes.")]

    events = list(gateway.chat(QUESTION, think=True))

    assert events[:3] == [Thinking("Let me see."), Thinking(" Notes."), Text("Yes.")]
    assert fake_ollama.requests[-1][1]["think"] is True


def test_json_mode_sends_format_json_or_the_schema(fake_ollama):
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}

    list(gateway.chat(QUESTION, json=True))
    list(gateway.chat(QUESTION, json=schema))

    assert fake_ollama.requests[-2][1]["format"] == "json"
    assert fake_ollama.requests[-1][1]["format"] == schema


def test_tool_calls_come_back_as_events_with_their_arguments(fake_ollama):
    fake_ollama.parts = [part(tool_calls=[("search_knowledge_base", {"query": "cells"})])]
    tools = [{"type": "function", "function": {"name": "search_knowledge_base"}}]

    events = list(gateway.chat(QUESTION, tools=tools))

    assert ToolCall("search_knowledge_base", {"query": "cells"}) in events
    assert fake_ollama.requests[-1][1]["tools"][0]["function"]["name"] == "search_knowledge_base"


def test_images_go_with_the_last_user_message(fake_ollama):
    messages = [{"role": "system", "content": "Be brief."}, *QUESTION]

    list(gateway.chat(messages, images=[b"\x89PNG fake"]))

    sent = fake_ollama.requests[-1][1]["messages"]
    assert "images" not in sent[0]
    assert len(sent[1]["images"]) == 1


def test_a_whole_answer_without_streaming_is_one_text_event(fake_ollama):
    assert gateway.complete(QUESTION) == "Hello world"
    assert fake_ollama.requests[-1][1]["stream"] is False


def test_a_missing_model_says_how_to_pull_it(fake_ollama):
    fake_ollama.models = ["embeddinggemma:latest"]

    with pytest.raises(ModelUnavailable, match=r"model not pulled: run `ollama pull gemma4:e4b`"):
        list(gateway.chat(QUESTION))


def test_a_server_error_is_a_model_error(fake_ollama):
    fake_ollama.fail_with = (500, "out of memory")

    with pytest.raises(ModelError, match="out of memory"):
        list(gateway.chat(QUESTION))


def test_a_slow_stream_still_arrives_whole(fake_ollama, settings):
    settings.OLLAMA_TIMEOUT = 5
    fake_ollama.delay = 0.2

    assert gateway.complete(QUESTION, stream=True) == "Hello world"


def test_a_stalled_stream_times_out_with_a_model_error(fake_ollama, settings):
    settings.OLLAMA_TIMEOUT = 0.3
    fake_ollama.delay = 2

    with pytest.raises(ModelError, match="did not answer"):
        list(gateway.chat(QUESTION))


def test_a_stream_cut_short_is_a_model_error(fake_ollama):
    fake_ollama.cut_stream = True

    with pytest.raises(ModelError, match="without finishing"):
        list(gateway.chat(QUESTION))


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ollama_down_is_model_unavailable_after_retries(settings):
    settings.LLM_BACKEND = "ollama"
    settings.OLLAMA_HOST = f"http://127.0.0.1:{closed_port()}"
    settings.OLLAMA_BACKOFF_SECONDS = 0

    with pytest.raises(ModelUnavailable, match="not reachable"):
        list(gateway.chat(QUESTION))


def test_auto_uses_ollama_when_it_has_the_model(fake_ollama, settings):
    settings.LLM_BACKEND = "auto"

    assert gateway.current_backend().name == "ollama"


def test_auto_falls_back_to_embedded_when_the_model_is_not_pulled(fake_ollama, settings):
    settings.LLM_BACKEND = "auto"
    fake_ollama.models = ["embeddinggemma:latest"]

    info = gateway.current_backend()

    assert info.name == "embedded"
    assert info.limits[:2] == ["no thinking mode", "English only"]


def test_auto_falls_back_to_embedded_when_ollama_is_down(settings):
    settings.LLM_BACKEND = "auto"
    settings.OLLAMA_HOST = f"http://127.0.0.1:{closed_port()}"

    assert gateway.current_backend().name == "embedded"


def test_embeddings_are_normalised_float32_in_batches(fake_ollama, settings):
    settings.EMBEDDING_BATCH_SIZE = 2
    texts = ["one", "two", "three", "four", "five"]

    vectors = gateway.embed(texts)

    assert vectors.shape == (5, 16)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert [len(body["input"]) for path, body in fake_ollama.requests if path == "/api/embed"] == [
        2,
        2,
        1,
    ]


def test_the_embedding_model_names_backend_model_and_dimension(fake_ollama):
    assert gateway.embedding_model() == gateway.EmbeddingModel("ollama/embeddinggemma", 16)


def test_health_reports_backend_models_and_readiness(fake_ollama):
    report = gateway.health()

    assert report["chat"] == {
        "backend": "ollama",
        "model": "gemma4:e4b",
        "limits": [],
        "ready": True,
        "detail": "ready",
    }
    assert report["embeddings"]["ready"] is True
    assert report["ollama"]["reachable"] is True
    assert "gemma4:e4b" in report["ollama"]["models"]


def test_health_says_which_model_to_pull(fake_ollama):
    fake_ollama.models = ["gemma4:e4b"]

    report = gateway.health()

    assert report["embeddings"]["ready"] is False
    assert report["embeddings"]["detail"] == "model not pulled: run `ollama pull embeddinggemma`"


def test_auto_looks_again_right_after_ollama_lost_the_model(fake_ollama, settings):
    settings.LLM_BACKEND = "auto"
    settings.LLM_RECHECK_SECONDS = 3600
    assert gateway.current_backend().name == "ollama"
    fake_ollama.models = ["embeddinggemma:latest"]

    with pytest.raises(ModelUnavailable):
        list(gateway.chat(QUESTION))

    assert gateway.current_backend().name == "embedded"


def listings(fake_ollama) -> int:
    return sum(path == "/api/tags" for path, _ in fake_ollama.requests)


def test_answers_arriving_together_ask_the_server_once(fake_ollama, settings):
    settings.LLM_BACKEND = "auto"
    settings.LLM_RECHECK_SECONDS = 3600
    fake_ollama.listing.clear()
    arrived = threading.Barrier(9)

    def backend() -> str:
        arrived.wait()
        return gateway.current_backend().name

    with ThreadPoolExecutor(8) as pool:
        names = [pool.submit(backend) for _ in range(8)]
        arrived.wait()
        wait_until(lambda: listings(fake_ollama), timeout=30, what="the model list asked for")
        fake_ollama.listing.set()

    assert [name.result() for name in names] == ["ollama"] * 8
    assert listings(fake_ollama) == 1


def test_while_one_thread_asks_again_the_others_keep_the_last_answer(fake_ollama, settings):
    settings.LLM_BACKEND = "auto"
    settings.LLM_RECHECK_SECONDS = 3600
    last = ollama.probe()
    ollama._probes[fake_ollama.url] = dataclasses.replace(last, at=last.at - 7200)
    fake_ollama.listing.clear()
    with ThreadPoolExecutor(2) as pool:
        asking = pool.submit(ollama.probe)
        wait_until(lambda: listings(fake_ollama) == 2, timeout=30, what="the list asked again")
        other = pool.submit(gateway.current_backend)

        try:
            assert other.result(timeout=60).name == "ollama"  # not held by the one asking
            assert not asking.done()
        finally:
            fake_ollama.listing.set()

    assert asking.result().at > last.at
    assert listings(fake_ollama) == 2
