"""A size a generator does not make is the same error, with the same status, in every mode."""

import pytest

from apps.study import generator
from apps.study.errors import InvalidInput
from apps.study.flashcards.generation import start_deck
from apps.study.quizzes.generation import create_quiz
from apps.study.tests.helpers import create_workshop

SIZES = {
    "quiz": lambda user: create_quiz(user, num_questions=7, difficulty="beginner", types=["mcq"]),
    "workshop": lambda user: create_workshop(user, num_lessons=7),
    "deck": lambda user: start_deck(user, num_cards=7, scope=generator.WHOLE_VAULT),
}


@pytest.mark.parametrize("mode", SIZES)
def test_a_size_that_is_not_made_is_invalid_input_answering_422(alice, model, mode):
    with pytest.raises(InvalidInput, match="has") as refused:
        SIZES[mode](alice)

    assert refused.value.status == 422
    assert not model.chats
