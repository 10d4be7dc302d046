import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from apps.study import generator, parsing, retrieval
from apps.study.quizzes.generation import QuestionItem, same_question
from apps.study.tests.helpers import make_studied_document, questions
from apps.study.tests.malformed import CORPUS
from tests.helpers.documents import make_category, make_document

SOURCES = [
    retrieval.Source(
        chunk_id=100 + i, document_id=1, filename="a.txt", page=i, section="", text=f"excerpt {i}"
    )  # fmt: skip
    for i in range(3)
]


def parse(text: str, count: int = 5):
    return parsing.parse_items(
        text, key="questions", schema=QuestionItem, count=count, sources=SOURCES,
        identity=same_question,
    )  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [(t, n) for _, t, n in CORPUS],
                         ids=[name for name, _, _ in CORPUS])  # fmt: skip
def test_it_keeps_exactly_the_valid_questions_of_a_malformed_answer(text, expected):
    items, _ = parse(text)

    assert len(items) == expected
    for item in items:
        assert len(item.value.options) == {"mcq": 4, "true_false": 2}[item.value.type]
        assert 0 <= item.value.correct_index < len(item.value.options)


def test_numbering_is_taken_off_the_question_text():
    items, _ = parse(dict(CORPUS_BY_NAME)["numbered questions"])

    assert items[0].value.question == "What is ATP?"


CORPUS_BY_NAME = [(name, text) for name, text, _ in CORPUS]


def test_an_item_citing_an_excerpt_keeps_that_chunk_and_others_keep_all():
    items, _ = parse(dict(CORPUS_BY_NAME)["clean object"])

    assert items[0].chunk_ids == [100]  # "source": 1
    assert items[1].chunk_ids == [100, 101, 102]  # no source given


def test_questions_of_types_not_asked_for_are_dropped():
    items, _ = parsing.parse_items(
        dict(CORPUS_BY_NAME)["clean object"], key="questions", schema=QuestionItem, count=5,
        context={"types": ["true_false"]},
    )  # fmt: skip

    assert [item.value.type for item in items] == ["true_false", "true_false"]


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_parsing_never_raises_on_any_text(text):
    items, received = parse(text)

    assert len(items) <= 5
    assert received >= len(items)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(
            st.sampled_from(
                [
                    "questions",
                    "type",
                    "question",
                    "options",
                    "correct_index",
                    "explanation",
                    "source",
                    "x",
                ]
            ),  # fmt: skip
            children,
            max_size=6,
        )
    ),
    max_leaves=40,
)


@hypothesis_settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["{}", "```json\n{}\n```", "Here: {} ok", "{},"]))
def test_parsing_never_raises_on_any_json_shape(value, wrapper):
    import json

    items, _ = parse(wrapper.replace("{}", json.dumps(value)))

    assert all(isinstance(item.value, QuestionItem) for item in items)


def test_it_spreads_the_excerpts_across_documents_and_stops_at_15(alice):
    for name in ("a.txt", "b.txt", "c.txt"):
        make_studied_document(alice, name, chunks=20)

    sources = retrieval.retrieve(alice, generator.WHOLE_VAULT)

    assert len(sources) == 15
    assert {source.filename for source in sources} == {"a.txt", "b.txt", "c.txt"}
    assert len({source.chunk_id for source in sources}) == 15


def test_an_empty_vault_is_a_clear_error(alice):
    with pytest.raises(generator.EmptyScope, match="Knowledge Base"):
        retrieval.retrieve(alice, generator.WHOLE_VAULT)


def test_a_scope_with_no_documents_is_a_clear_error(alice, bob):
    make_studied_document(alice, "mine.txt")
    theirs = make_studied_document(bob, "theirs.txt")
    empty_category = make_category("Empty")

    for scope in (generator.Scope(document_ids=[theirs.pk]),
                  generator.Scope(category_ids=[empty_category.pk])):  # fmt: skip
        with pytest.raises(generator.EmptyScope, match="scope has no documents"):
            retrieval.retrieve(alice, scope)


def test_a_scope_of_documents_that_failed_to_read_says_so_instead_of_asking_to_wait(alice):
    locked = make_document(
        alice, "locked.pdf", status="failed", error="The PDF is password-protected."
    )
    pending = make_document(alice, "new.txt", status="pending")

    with pytest.raises(generator.EmptyScope) as refused:
        retrieval.retrieve(alice, generator.Scope(document_ids=[locked.pk]))
    assert str(refused.value) == (
        "The documents in this scope could not be read: "
        "locked.pdf (The PDF is password-protected). Pick other documents."
    )
    with pytest.raises(generator.EmptyScope, match="wait until they are processed"):
        retrieval.retrieve(alice, generator.Scope(document_ids=[locked.pk, pending.pk]))


def test_other_peoples_chunks_never_reach_the_prompt(alice, bob, model):
    make_studied_document(alice, "mine.txt")
    make_studied_document(bob, "secret-diary.txt")
    model.answer(questions(5))

    generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                             key="questions", values=QUIZ_VALUES)  # fmt: skip

    assert "mine.txt" in model.prompt()
    assert "secret-diary" not in model.prompt()


QUIZ_VALUES = {"difficulty": "beginner", "difficulty_hint": "", "types": "mcq"}


def test_the_prompts_own_example_handed_back_is_dropped(alice, model):
    make_studied_document(alice)
    copied = {
        "type": "mcq",
        "question": "Which gas do plants take in for photosynthesis?",
        "options": ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"],
        "correct_index": 1,
        "explanation": "Plants take in carbon dioxide and release oxygen.",
        "source": 2,
    }
    answer = questions(2)
    answer["questions"].insert(0, copied)
    model.answer(answer)

    result = generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                      key="questions", values=QUIZ_VALUES)  # fmt: skip

    assert len(result.items) == 2
    assert copied["question"] not in [item.value.question for item in result.items]


def test_generation_asks_for_the_answer_schema_at_a_low_temperature_with_the_count_pinned(
    alice, model
):
    make_studied_document(alice)
    model.answer(questions(5))

    result = generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                      key="questions", values=QUIZ_VALUES)  # fmt: skip

    request = model.chats[-1]
    # The answer's JSON schema goes with the request, so the model is held to the shape.
    answer_shape = request["format"]["properties"]["questions"]
    assert answer_shape["maxItems"] == 5
    assert "correct_index" in answer_shape["items"]["properties"]
    assert request["options"]["temperature"] <= 0.3
    assert "EXACTLY 5" in model.prompt()
    assert len(result.items) == 5
    assert (result.backend, result.model) == ("ollama", "gemma4:e4b")


def test_a_model_that_is_down_is_a_clear_error(alice, model):
    make_studied_document(alice)
    model.fail_with = (500, "out of memory")

    with pytest.raises(generator.ModelDown, match="language model"):
        generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                 key="questions", values=QUIZ_VALUES)  # fmt: skip


def test_a_model_that_is_not_installed_is_a_clear_error(alice, model):
    make_studied_document(alice)
    model.models = []

    with pytest.raises(generator.ModelDown):
        generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                 key="questions", values=QUIZ_VALUES)  # fmt: skip


def test_an_answer_with_nothing_valid_is_a_clear_error(alice, model):
    make_studied_document(alice)
    model.answer("Sorry, I can only chat.")

    with pytest.raises(generator.NothingValid, match="nothing usable"):
        generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                 key="questions", values=QUIZ_VALUES)  # fmt: skip


def test_a_custom_prompt_takes_effect_on_the_next_request_without_restart(alice, model, settings):
    make_studied_document(alice)
    model.answer(questions(5))
    custom = settings.DATA_DIR / "prompts" / "custom"
    custom.mkdir(parents=True)

    def generate():
        generator.generate_items(alice, template="quiz", schema=QuestionItem, count=5,
                                 key="questions", values=QUIZ_VALUES)  # fmt: skip
        return model.prompt()

    assert "You are a teacher writing a quiz" in generate()
    (custom / "quiz.md").write_text("Quiz in pirate speak, EXACTLY {{ count }}.\n{{ context }}")
    assert generate().startswith("Quiz in pirate speak, EXACTLY 5.")
    (custom / "quiz.md").write_text("Second edit: {{ count }} questions.\n{{ context }}")
    assert generate().startswith("Second edit: 5 questions.")
    (custom / "quiz.md").unlink()
    assert "You are a teacher writing a quiz" in generate()
