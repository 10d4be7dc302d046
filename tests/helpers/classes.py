"""Classes of the tests: a teacher's class with some students in it, and roster files."""

import io
import zipfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass


def make_class(teacher: User, students=(), name: str = "7b") -> SchoolClass:
    school_class = SchoolClass.objects.create_for(teacher, name)
    school_class.enrol(students, Enrolment.Role.STUDENT)
    return school_class


def class_of(teacher: User) -> SchoolClass:
    """The one class `teacher` teaches (made for them when they teach none yet)."""
    taught = SchoolClass.objects.filter(
        pk__in=Enrolment.objects.teaching(teacher).values("school_class")
    )
    return taught.get() if taught.exists() else make_class(teacher)


# A OneRoster 1.2 CSV roster in the shape of 1EdTech's published examples (the full headers,
# blank status and dateLastModified in a bulk file, orgs, courses, roles and a manifest
# beside the three files CogniVault reads), with a made-up school's data.
ONEROSTER_EXAMPLE = Path(__file__).resolve().parents[2] / "apps/classes/tests/data/oneroster"


def oneroster_zip(folder: str = "", **changed: str | None) -> bytes:
    """The example roster zipped (in `folder`, if given), with the files named in `changed`
    (`users`, `classes`, ... without .csv) holding that text instead, or left out for None."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(ONEROSTER_EXAMPLE.glob("*.csv")):
            text = changed.get(path.stem, path.read_text())
            if text is not None:
                archive.writestr(f"{folder}{path.name}", text)
    return buffer.getvalue()


def example_csv(name: str) -> str:
    return (ONEROSTER_EXAMPLE / f"{name}.csv").read_text()


def send_roster(client: Client, data: bytes | str, **fields):
    """POST /api/v1/classes/import with the file (its name says nothing)."""
    data = data.encode() if isinstance(data, str) else data
    upload = SimpleUploadedFile("roster", data)
    return client.post("/api/v1/classes/import", {"file": upload, **fields})


def school_state() -> tuple:
    """Everything a roster import may change: the accounts, the classes, the enrolments."""
    return (
        sorted(User.objects.values_list("username", "first_name", "last_name", "roster_id")),
        sorted(SchoolClass.objects.values_list("name", "roster_id", "owner__username")),
        sorted(Enrolment.objects.values_list("school_class__name", "user__username", "role")),
    )


def class_members(name: str) -> list[str]:
    """The usernames of the students of the class called `name`."""
    students = SchoolClass.objects.get(name=name).students
    return sorted(students.values_list("username", flat=True))
