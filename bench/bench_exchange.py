"""Exchange: importing a question bank of 500 questions from Moodle XML (450 multiple choice
or true/false, one in ten with a picture, and 50 essays to skip), read in-process and through
the reading sandbox into a quiz, and exporting that quiz again in each format. Medians of
repeated runs."""

import base64
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-exchange-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.core.management import call_command  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.study.quizzes import bank_import, exports, moodle_xml  # noqa: E402

REPEATS = 5
QUESTIONS = 500
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAFElEQVR4nGM8ISfHAANMDEgAhQMAJtoBCkAAOw8AAAA"
    "ASUVORK5CYII="
)


def question(n: int) -> str:
    if n % 10 == 9:
        return (
            f'<question type="essay"><name><text>Essay {n}</text></name><questiontext '
            f'format="html"><text>Describe case {n}.</text></questiontext></question>'
        )
    picture = (
        f'&lt;img src="@@PLUGINFILE@@/p{n}.png"&gt;</text><file name="p{n}.png" '
        f'encoding="base64">{base64.b64encode(base64.b64decode(PNG)).decode()}</file>'
        if n % 10 == 0
        else "</text>"
    )
    if n % 3 == 0:
        return (
            f'<question type="truefalse"><name><text>TF {n}</text></name><questiontext '
            f'format="html"><text>&lt;p&gt;Statement number {n} is true.&lt;/p&gt;{picture}'
            f'</questiontext><answer fraction="100"><text>true</text><feedback><text>Yes, '
            f'{n}.</text></feedback></answer><answer fraction="0"><text>false</text>'
            "<feedback><text></text></feedback></answer></question>"
        )
    answers = "".join(
        f'<answer fraction="{100 if i == n % 4 else 0}" format="html"><text>&lt;p&gt;Option '
        f'{i} of {n}&lt;/p&gt;</text><feedback format="html"><text>Because {i}.</text>'
        "</feedback></answer>"
        for i in range(4)
    )
    return (
        f'<question type="multichoice"><name><text>MC {n}</text></name><questiontext '
        f'format="html"><text>&lt;p&gt;Which option answers question {n} about cells?'
        f'&lt;/p&gt;{picture}</questiontext><generalfeedback format="html"><text>See '
        f"chapter {n % 12}.</text></generalfeedback><single>true</single>{answers}</question>"
    )


def bank() -> bytes:
    category = (
        '<question type="category"><category><text>$course$/top/Biology</text></category>'
        "</question>"
    )
    body = "".join(question(n) for n in range(QUESTIONS))
    return f'<?xml version="1.0" encoding="UTF-8"?><quiz>{category}{body}</quiz>'.encode()


def median_ms(work) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    call_command("migrate", verbosity=0)
    teacher = User.objects.create_user("bench-teacher", is_staff=True)
    data = bank()
    quizzes = []

    def import_it():
        quiz, skipped = bank_import.import_quiz(teacher, SimpleUploadedFile("bank.xml", data))
        quizzes.append((quiz, skipped))

    read_ms = median_ms(lambda: moodle_xml.read(data))
    import_ms = median_ms(import_it)
    quiz, skipped = quizzes[-1]
    print(f"## Importing a question bank (median of {REPEATS} runs, {os.cpu_count()} cores)\n")
    print(
        f"A Moodle XML bank of {QUESTIONS} questions ({len(data) / 1000:.0f} kB, one in ten "
        f"with a picture): {quiz.questions.count()} kept, {len(skipped)} essays skipped.\n"
    )
    print("| step | ms |")
    print("| --- | ---: |")
    print(f"| read in this process (parse, HTML to text, pictures) | {read_ms:.0f} |")
    print(
        f"| import: the reading sandbox, then the quiz saved in one transaction | {import_ms:.0f} |"
    )
    for fmt in ("xml", "gift", "zip"):
        make = exports.FORMATS[fmt][1]
        print(f"| export the quiz as .{fmt} | {median_ms(lambda make=make: make(quiz)):.0f} |")


if __name__ == "__main__":
    main()
