"""What a roster file names, as read (apps/classes/roster_files.py): its people, classes and
enrolments, each with the line it came from and, once checked, what is wrong with it (and
what can be wrong with a cell). The rosters apply the rows without an error
(apps/classes/rosters.py)."""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from apps.accounts.forms import MAX_NAME_LENGTH
from apps.accounts.models import User
from apps.classes.models import SchoolClass

USERS, CLASSES, ENROLLMENTS = "users.csv", "classes.csv", "enrollments.csv"
MAX_EMAIL_LENGTH = 254  # the account's field
ONEROSTER_FILES = (USERS, CLASSES, ENROLLMENTS)


@dataclass(frozen=True)
class Where:
    file: str  # "" for a plain CSV, else the zip's CSV
    line: int  # the file's line, its header being line 1

    def __str__(self) -> str:
        return f"{self.file} line {self.line}" if self.file else f"line {self.line}"

    @property
    def heading(self) -> str:
        """As it starts a sentence."""
        return f"{self.file} line {self.line}" if self.file else f"Line {self.line}"


@dataclass(frozen=True)
class RowError:
    where: Where
    message: str

    @property
    def detail(self) -> str:
        """The message, with the zip's CSV it is about (the line is given beside it)."""
        return f"{self.where.file}: {self.message}" if self.where.file else self.message


@dataclass(eq=False, kw_only=True)
class Row:
    where: Where
    error: str = ""

    def refuse(self, message: str) -> None:
        self.error = self.error or message


@dataclass(eq=False, kw_only=True)
class Person(Row):
    first_name: str = ""
    last_name: str = ""
    username: str = ""
    email: str = ""
    roster_id: str = ""
    role: str = ""  # "student" or "teacher"; "" until the enrolments say (OneRoster 1.2)
    leaving: bool = False
    account: User | None = None  # the existing account it is, once looked up

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    @property
    def called(self) -> str:
        return self.username or self.roster_id or self.name


@dataclass(eq=False, kw_only=True)
class RosterClass(Row):
    name: str
    roster_id: str = ""
    leaving: bool = False
    found: SchoolClass | None = None  # the existing class it is, once looked up


@dataclass(eq=False, kw_only=True)
class Membership(Row):
    person: Person
    school_class: RosterClass
    role: str
    leaving: bool = False
    primary: bool = False


@dataclass
class Roster:
    people: list[Person] = field(default_factory=list)
    classes: list[RosterClass] = field(default_factory=list)
    memberships: list[Membership] = field(default_factory=list)
    refused: list[RowError] = field(default_factory=list)  # rows that name nothing usable
    rows: int = 0

    def refuse(self, where: Where, message: str) -> None:
        self.refused.append(RowError(where, message))

    def leave_out_dependants(self) -> None:
        """An enrolment of a person or class in error goes with them."""
        for membership in self.memberships:
            for row in (membership.person, membership.school_class):
                if row.error:  # a plain CSV's row is all three: its own error says why
                    same = row.where == membership.where
                    membership.refuse(row.error if same else f"left out with {row.where}.")

    def errors(self) -> list[RowError]:
        """One error per bad row, in the files' order, the first cause found."""
        found: dict[Where, RowError] = {error.where: error for error in self.refused}
        for row in [*self.classes, *self.memberships, *self.people]:
            if row.error:
                found.setdefault(row.where, RowError(row.where, row.error))
        order = ("", *ONEROSTER_FILES)
        return sorted(found.values(), key=lambda e: (order.index(e.where.file), e.where.line))

    @property
    def good_rows(self) -> int:
        return self.rows - len(self.errors())


def length_problem(text: str, what: str, limit: int) -> str:
    """What is wrong with a cell that must not be blank nor longer than `limit`, or ""."""
    if not text:
        return f"no {what}."
    if len(text) > limit:
        return f"a {what} may have at most {limit} characters."
    return ""


def email_problem(email: str) -> str:
    return _problem(email, MAX_EMAIL_LENGTH, validate_email, "an e-mail address", "")


def username_problem(username: str) -> str:
    rule = ": letters, digits and @ . + - _ only"
    return _problem(username, MAX_NAME_LENGTH, User.username_validator, "a username", rule)


def _problem(value: str, limit: int, validate, what: str, rule: str) -> str:
    """What is wrong with a cell that `validate` must accept, at most `limit` long, or ""."""
    if len(value) > limit:
        return f"{what} may have at most {limit} characters."
    try:
        validate(value)
    except ValidationError:
        return f"{value!r} is not {what}{rule}."
    return ""
