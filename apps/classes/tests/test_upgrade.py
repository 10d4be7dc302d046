"""Upgrading keeps everything: a database the release before classes made (its SQLite file as
SQL, tests/data: two teachers, three students, class sets of every kind, a student's card,
token and personal document) is migrated by `manage.py migrate` as `make run` would, and
becomes one class of the first teacher, with every card printed before still working."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import signing

from apps.classes.models import SchoolClass

DATA = Path(__file__).parent / "data"
RELEASE = "release-c7f190f"

# What the migrated database holds, read by the app itself in a process of its own.
REPORT = """
import json
from django.core import signing

from apps.classes.models import SchoolClass
from apps.accounts import login_cards
from apps.accounts.models import ApiToken, User
from apps.classes.models import SchoolClass
from apps.study.classsets.models import ClassSet
[school_class] = SchoolClass.objects.all()
print(json.dumps({
    "class": school_class.name,
    "owner": school_class.owner.username,
    "teachers": sorted(school_class.teachers.values_list("username", flat=True)),
    "students": sorted(school_class.students.values_list("username", flat=True)),
    "old_card": getattr(login_cards.holder(OLD_CARD), "username", None),
    "hashes": sorted(len(h) for h in User.objects.exclude(card_key_hash="").values_list(
        "card_key_hash", flat=True)),
    "tokens": list(ApiToken.objects.values_list("user__username", "name")),
    "admin_password": User.objects.get(username="teacher").check_password("release-admin-pass"),
    "class_sets": sorted(ClassSet.objects.filter(school_class=school_class).values_list(
        "teacher__username", "kind")),
}))
"""


def old_card(dump: str, secret_key: str, username: str) -> str:
    """The card printed for `username` by the release: its id and key, signed."""
    database = sqlite3.connect(":memory:")
    database.executescript(dump)
    pk, key = database.execute(
        "SELECT id, badge_key FROM accounts_user WHERE username = ?", (username,)
    ).fetchone()
    signer = signing.Signer(key=secret_key, salt="apps.accounts.badge")
    return signer.sign(f"{pk}.{key}")


def manage(data_dir: Path, *args: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env |= {"DATA_DIR": str(data_dir), "DJANGO_SETTINGS_MODULE": "cognivault_site.settings"}
    env["SECRET_KEY"] = (DATA / f"{RELEASE}.secret_key").read_text()
    done = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_release_before_classes_becomes_one_class_of_the_first_teacher(tmp_path):
    dump = (DATA / f"{RELEASE}.sql").read_text()
    sqlite3.connect(tmp_path / "cognivault.sqlite3").executescript(dump)
    card = old_card(dump, (DATA / f"{RELEASE}.secret_key").read_text(), "anna.schmidt")

    manage(tmp_path, "migrate", "--no-input", "-v", "0")
    printed = manage(tmp_path, "shell", "-v", "0", "-c", f"OLD_CARD = {card!r}\n{REPORT}")
    report = json.loads(printed.strip().splitlines()[-1])

    assert report["class"] == "My class" and report["owner"] == "teacher"
    assert report["teachers"] == ["ms.berg", "teacher"]  # each reached every student before
    assert report["students"] == ["anna.schmidt", "ben.meyer", "chiara.rossi"]
    assert report["old_card"] == "anna.schmidt"  # the paper card still logs her in
    assert report["hashes"] == [64, 64, 64]  # the keys themselves are gone
    assert report["tokens"] == [["anna.schmidt", "laptop"]]
    assert report["admin_password"] is True
    assert report["class_sets"] == [  # each teacher's sets, now the one class's
        ["ms.berg", "quiz"],
        ["teacher", "deck"],
        ["teacher", "mindmap"],
        ["teacher", "quiz"],
        ["teacher", "workshop"],
    ]


@pytest.mark.django_db
def test_a_new_installation_gets_no_class():
    assert not SchoolClass.objects.exists()
