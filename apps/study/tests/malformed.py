"""Model answers as small models really write them, each asked for 5 quiz questions, with
how many valid questions a correct parser and validator keep. Shared by tests and bench."""

import json

from apps.study.tests.helpers import mcq, questions, true_false

FIVE = json.dumps(questions(5))


def _shape(items: list) -> str:
    return json.dumps({"questions": items})


CORPUS: list[tuple[str, str, int]] = [
    ("clean object", FIVE, 5),
    ("fenced", f"```json\n{FIVE}\n```", 5),
    ("prose around", f"Sure! Here is your quiz:\n{FIVE}\nI hope this helps.", 5),
    ("trailing commas", FIVE.replace("}]", "},]").replace('"]', '",]'), 5),
    ("bare array", json.dumps(questions(5)["questions"]), 5),
    ("other key", json.dumps({"quiz": questions(5)["questions"]}), 5),
    ("too many", json.dumps(questions(8)), 5),
    (
        "wrong types",
        _shape(
            [
                mcq(0),
                mcq(1, correct_index="1"),
                mcq(2, options="A, B"),
                mcq(3, question=7),
                mcq(4, correct_index=True),
            ]  # fmt: skip
        ),
        1,
    ),
    (
        "missing fields",
        _shape(
            [
                {k: v for k, v in mcq(i).items() if k != drop}
                for i, drop in enumerate(
                    ["options", "correct_index", "explanation", "question", "type"]
                )
            ]
            + [mcq(9)]  # fmt: skip
        ),
        1,
    ),
    (
        "wrong option counts",
        _shape(
            [
                mcq(0, options=["A", "B", "C"]),
                true_false(1, options=["True", "False", "Maybe"]),
                mcq(2),
                true_false(3),
            ]  # fmt: skip
        ),
        2,
    ),
    (
        "correct_index out of range",
        _shape([mcq(0, correct_index=4), true_false(1, correct_index=-1), mcq(2)]),
        1,
    ),
    ("duplicates", _shape([mcq(0), mcq(0), mcq(0, explanation="Again."), true_false(1)]), 2),
    ("repeated options", _shape([mcq(0, options=["A", "A", "B", "C"]), mcq(1)]), 1),
    ("blank strings", _shape([mcq(0, question="  "), mcq(1, explanation=""), mcq(2)]), 1),
    ("unknown type", _shape([mcq(0, type="essay"), mcq(1)]), 1),
    ("items not objects", _shape(["What is a cell?", 3, None, mcq(1)]), 1),
    ("empty", "", 0),
    ("empty object", "{}", 0),
    ("empty list", '{"questions": []}', 0),
    ("no json", "I cannot make a quiz from this material.", 0),
    ("truncated", FIVE[: len(FIVE) // 2], 0),
    ("numbered questions", _shape([mcq(0, question="1. What is ATP?"), mcq(1)]), 2),
]
