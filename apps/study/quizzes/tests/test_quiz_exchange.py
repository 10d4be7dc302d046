"""A quiz in and out of a school's other tools, through the pages and the API: files are read in
the reading sandbox (a real child process), a quiz is made whole or not at all, and it is then
a quiz like any other."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.study.classsets.tests.factories import class_passages, make_quiz
from apps.study.models import Quiz
from tests.helpers.isolation import assert_only_owner_can_reach
from tests.helpers.users import client_for

DATA = Path(__file__).parent / "data"
IMPORT = "/api/v1/study/quizzes/import"


def upload(name: str, data: bytes) -> dict:
    return {"file": SimpleUploadedFile(name, data)}


def test_a_moodle_bank_becomes_a_quiz_and_the_rest_is_listed_as_skipped(alice, alice_client):
    response = alice_client.post(
        IMPORT, upload("bank.xml", (DATA / "moodle_bank.xml").read_bytes())
    )

    assert response.status_code == 201, response.content
    body = response.json()
    quiz = Quiz.objects.get(pk=body["id"], owner=alice)
    assert body["imported"] == 2 and quiz.title == "Biology 7b"
    assert [(s["index"], s["type"]) for s in body["skipped"]] == [
        (3, "shortanswer"), (4, "essay"), (5, "matching"), (6, "multianswer"), (7, "multichoice"),
    ]  # fmt: skip
    assert all(s["reason"] for s in body["skipped"])
    first = quiz.questions.get(position=0)
    assert first.options == ["The nucleus", "The mitochondrion", "The ribosome"]
    assert first.pictures and first.pictures[0].startswith("data:image/png;base64,")


def test_the_imported_quiz_shows_its_pictures_and_no_html_from_the_file(alice, alice_client):
    quiz_id = alice_client.post(
        IMPORT, upload("bank.xml", (DATA / "moodle_bank.xml").read_bytes())
    ).json()["id"]

    page = alice_client.get(f"/study/quizzes/{quiz_id}/").content.decode()

    assert 'class="question-picture" src="data:image/png;base64,' in page
    assert "<strong>the powerhouse</strong>" not in page and "alert(" not in page
    assert "Which organelle is the powerhouse of the cell?" in page


def test_the_page_imports_a_bank_and_says_what_was_left_out(alice, alice_client):
    response = alice_client.post(
        "/study/quizzes/import/", upload("chemistry.gift", (DATA / "bank.gift").read_bytes())
    )

    quiz = Quiz.objects.get(owner=alice)
    assert response.status_code == 302 and response["Location"] == f"/study/quizzes/{quiz.pk}/edit/"
    page = alice_client.get(response["Location"]).content.decode()
    assert "Imported 4 questions." in page
    assert "Left out 1 × essay (7): an essay is marked by a person." in page


def test_a_file_with_nothing_that_can_be_asked_is_a_400_and_makes_nothing(alice_client):
    essays = b"::One::Describe a cell.{}\n\n::Two::Describe an atom.{}\n"

    response = alice_client.post(IMPORT, upload("essays.txt", essays))
    page = alice_client.post("/study/quizzes/import/", upload("essays.txt", essays))

    assert response.status_code == 400
    assert (
        "None of the 2 questions of this GIFT file can be asked here" in response.json()["detail"]
    )
    assert page.status_code == 400 and b"None of the 2 questions" in page.content
    assert not Quiz.objects.exists()


def test_a_50_mb_xml_file_is_refused_unread(alice_client):
    huge = b"<quiz>" + b" " * (50 * 1024 * 1024) + b"</quiz>"

    response = alice_client.post(IMPORT, upload("huge.xml", huge))

    assert response.status_code == 400
    assert response.json()["detail"] == "The file is 50 MB; an import takes files up to 20 MB."
    assert not Quiz.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'<!DOCTYPE q [<!ENTITY a "aaaa">]><quiz>&a;</quiz>', "DTD or XML entities"),
        (b"::Q::Caf\xe9 ?{T}", "not UTF-8 text"),
        (b"PK\x03\x04 not really a zip", "not a valid zip file"),
    ],
    ids=["entities", "utf8", "broken-zip"],
)
def test_hostile_or_broken_files_are_refused_in_the_sandbox_with_the_reason(
    alice_client, data, message
):
    response = alice_client.post(IMPORT, upload("bank", data))

    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert not Quiz.objects.exists()


@pytest.mark.parametrize("fmt", ["xml", "gift", "zip"])
def test_an_exported_quiz_imports_back_with_the_same_questions_and_feedback(tess, tess_client, fmt):
    quiz = make_quiz(tess, class_passages(tess))
    quiz.questions.update(explanation="Mitochondrien liefern ATP.")

    exported = tess_client.get(f"/api/v1/study/quizzes/{quiz.pk}/export.{fmt}")
    body = tess_client.post(IMPORT, upload(f"quiz.{fmt}", exported.content)).json()

    assert exported.status_code == 200
    copy = Quiz.objects.get(pk=body["id"])
    assert (copy.title, body["imported"], body["skipped"]) == ("Zellbiologie", 3, [])
    fields = ("text", "options", "correct_index", "explanation")
    assert list(copy.questions.values_list(*fields)) == list(quiz.questions.values_list(*fields))
    # GIFT has no fixed order of choices: a yes/no question comes back as multiple choice.
    kinds = ["mcq", "mcq" if fmt == "gift" else "true_false", "mcq"]
    assert list(copy.questions.values_list("kind", flat=True)) == kinds


@pytest.mark.parametrize("fmt", ["xml", "gift", "zip"])
def test_control_characters_in_a_quiz_are_left_out_of_its_exports_not_a_500(tess, tess_client, fmt):
    """A question edited through the API, or cut from a Word file's passage (a vertical tab is
    its line break), may hold characters XML cannot: written out without them."""
    quiz = make_quiz(tess, class_passages(tess))
    quiz.questions.filter(position=0).update(text="Was \x01liefert\x0bATP?")

    exported = tess_client.get(f"/api/v1/study/quizzes/{quiz.pk}/export.{fmt}")
    body = tess_client.post(IMPORT, upload(f"quiz.{fmt}", exported.content)).json()

    assert exported.status_code == 200
    copy = Quiz.objects.get(pk=body["id"])
    assert copy.questions.get(position=0).text == "Was liefert\nATP?"


def test_a_question_file_with_control_characters_comes_in_without_them(alice_client):
    gift = b"::Q1:: \x00Was liefert ATP?\x07 {=Mitochondrien ~Ribosomen\x00}"

    body = alice_client.post(IMPORT, upload("bank.gift", gift)).json()

    question = Quiz.objects.get(pk=body["id"]).questions.get()
    assert question.text == "Was liefert ATP?"
    assert sorted(question.options) == ["Mitochondrien", "Ribosomen"]


def test_the_quiz_page_offers_the_exports_and_only_the_owner_gets_them(tess, tess_client, alice):
    quiz = make_quiz(tess)

    page = tess_client.get(f"/study/quizzes/{quiz.pk}/edit/").content.decode()
    moodle = tess_client.get(f"/study/quizzes/{quiz.pk}/export.xml")

    for fmt in ("xml", "gift", "zip"):
        assert f"/study/quizzes/{quiz.pk}/export.{fmt}" in page
    assert moodle.status_code == 200 and moodle["Content-Type"] == "application/xml"
    assert moodle["Content-Disposition"] == f'attachment; filename="quiz-{quiz.pk}.xml"'
    for url in (
        f"/api/v1/study/quizzes/{quiz.pk}/export.zip",
        f"/study/quizzes/{quiz.pk}/export.gift",
    ):
        assert_only_owner_can_reach(url, client_for(alice), allowed_methods=["get"])


def test_an_imported_quiz_is_handed_out_shuffled_and_counted_like_any_other(
    tess_class, tess_client, alice_client
):
    quiz_id = tess_client.post(
        IMPORT, upload("bank.xml", (DATA / "moodle_bank.xml").read_bytes())
    ).json()["id"]

    handed = tess_client.post(
        "/api/v1/study/class-sets",
        {
            "kind": "quiz",
            "item_id": quiz_id,
            "attempts": 2,
            "grading": "best",
            "marks": "after_attempt",
        },
        content_type="application/json",
    )
    shown = alice_client.get(f"/api/v1/study/quizzes/{quiz_id}").json()
    right = [
        question["options"].index(answer)
        for question, answer in zip(
            shown["questions"],
            ["The mitochondrion" if q["type"] == "mcq" else "False" for q in shown["questions"]],
            strict=True,
        )
    ]
    attempt = alice_client.post(
        f"/api/v1/study/quizzes/{quiz_id}/attempts",
        {"answers": right},
        content_type="application/json",
    )
    results = tess_client.get(f"/api/v1/study/class-sets/{handed.json()['id']}/results").json()

    assert handed.status_code == 201 and shown["policy"]["attempts_allowed"] == 2
    assert attempt.status_code == 201 and attempt.json()["percent"] == 100
    assert [row["score"] for row in results["students"] if row["username"] == "alice"] == [100]


def test_a_bank_with_more_questions_than_a_quiz_holds_is_refused_whole(alice_client):
    bank = "".join(f"::Q{n}::Statement {n} holds.{{T}}\n\n" for n in range(1001)).encode()

    response = alice_client.post(IMPORT, upload("big.gift", bank))

    assert response.status_code == 400
    assert response.json()["detail"].startswith("A quiz holds at most 1000 questions; this file")
    assert not Quiz.objects.exists()
