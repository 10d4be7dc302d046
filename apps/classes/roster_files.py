"""Reading a roster file into the people, classes and enrolments it names, each with the line
it came from: a plain CSV (`name`, `username`, `class`) or a OneRoster 1.2 CSV zip
(`users.csv`, `classes.csv`, `enrollments.csv`), told apart by their content, never by the
file's name. A file that cannot be read at all is refused; a bad row is kept with its error.
What the rows change is apps/classes/rosters.py's (docs/classroom.md#rosters)."""

import csv
import io
import zipfile
import zlib
from pathlib import PurePosixPath

from apps.accounts.forms import MAX_NAME_LENGTH
from apps.accounts.models import split_name
from apps.classes.errors import ClassError
from apps.classes.models import MAX_NAME_LENGTH as MAX_CLASS_NAME
from apps.classes.roster_rows import (
    CLASSES,
    ENROLLMENTS,
    ONEROSTER_FILES,
    USERS,
    Membership,
    Person,
    Roster,
    RosterClass,
    Where,
    email_problem,
    length_problem,
    username_problem,
)

MAX_BYTES = 1024 * 1024  # a file, and each CSV of a zip once unzipped
MAX_PEOPLE = 5000
MAX_ROSTER_ID = 255
ROLES = ("student", "teacher")
LEAVING = "tobedeleted"  # OneRoster's status of a row to take out
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first member, or an empty zip
# What a damaged, encrypted or unusual zip raises while it is read.
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
              EOFError, zlib.error)  # fmt: skip
COLUMNS = {
    "": "A roster CSV has the columns name (or first name and last name), class and, where "
    "known, username and email.",
    USERS: "OneRoster's users.csv has sourcedId, givenName, familyName and, where known, "
    "username, role and status.",
    CLASSES: "OneRoster's classes.csv has sourcedId, title and, where known, status.",
    ENROLLMENTS: "OneRoster's enrollments.csv has classSourcedId, userSourcedId, role and, "
    "where known, status.",
}


# Other names a school's export gives the plain roster's columns: a student information
# system's "First Name", "Last Name", "Homeroom" and "E-Mail", a German one's "Vorname",
# "Nachname" and "Klasse".
ALSO_CALLED = {
    "class": ("homeroom", "klasse", "form"),
    "email": ("e-mail", "mail", "email address"),
    "first name": ("firstname", "first_name", "given name", "givenname", "vorname"),
    "last name": ("lastname", "last_name", "surname", "family name", "familyname", "nachname"),
}


class UnreadableRoster(ClassError):
    status = 422


class RosterTooBig(ClassError):
    status = 413


def upload(file) -> bytes:
    """An uploaded file's bytes, read no further than one past the limit (`read` refuses it)."""
    return file.read(MAX_BYTES + 1)


def read(data: bytes) -> Roster:
    if len(data) > MAX_BYTES:
        raise RosterTooBig("A roster file may be at most 1 MB: split it.")
    if not data.strip():
        raise UnreadableRoster("The file is empty.")
    if data[:4] in ZIP_STARTS:
        return oneroster(archive_texts(data))
    return plain(text_of(data, ""))


def text_of(data: bytes, file: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UnreadableRoster(
            f"{Where(file, line).heading}: this is not UTF-8 text. Save the file as "
            "“CSV UTF-8” and send it again."
        ) from error
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise UnreadableRoster(
            f"{Where(file, line).heading}: a NUL character: this is not a CSV file."
        )
    return text


def archive_texts(data: bytes) -> dict[str, str]:
    """The text of the zip's users.csv, classes.csv and enrollments.csv (in a folder or not)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members: dict[str, zipfile.ZipInfo] = {}
            for info in archive.infolist():
                name = PurePosixPath(info.filename).name.lower()
                if name in ONEROSTER_FILES and not info.is_dir():
                    if name in members:
                        raise UnreadableRoster(f"The zip holds two {name}: send one roster.")
                    members[name] = info
            missing = [name for name in ONEROSTER_FILES if name not in members]
            if missing:
                raise UnreadableRoster(
                    f"The zip has no {' or '.join(missing)}: a OneRoster roster holds "
                    "users.csv, classes.csv and enrollments.csv."
                )
            return {name: text_of(unzipped(archive, members[name]), name) for name in members}
    except ZIP_ERRORS as error:
        raise UnreadableRoster(f"The zip cannot be read: {error}.") from error


def unzipped(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, unzipped no further than the limit whatever its header claims."""
    with archive.open(info) as member:
        data = member.read(MAX_BYTES + 1)
    if info.file_size > MAX_BYTES or len(data) > MAX_BYTES:
        raise RosterTooBig(f"{PurePosixPath(info.filename).name} is over 1 MB unzipped: split it.")
    return data


class Table:
    """A CSV's header (its column names in lower case) and its non-blank rows with their
    lines."""

    def __init__(self, text: str, file: str, delimiter: str = ",") -> None:
        self.file, rows, line = file, [], 1
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            for cells in reader:
                if any(cell.strip() for cell in cells):
                    rows.append((line, [cell.strip() for cell in cells]))
                line = reader.line_num + 1
        except csv.Error as error:
            raise UnreadableRoster(f"{Where(file, line).heading}: {error}.") from error
        if not rows:
            raise UnreadableRoster(f"{file or 'The file'} is empty.")
        (self.header_line, header), *self.records = rows
        self.columns: dict[str, int] = {}
        for index, name in enumerate(header):
            self.columns.setdefault(name.lower(), index)

    def also_called(self, names: dict[str, tuple[str, ...]]) -> None:
        """A column found under another of its names is read under this one too."""
        for name, others in names.items():
            found = [other for other in others if other in self.columns]
            if name not in self.columns and found:
                self.columns[name] = self.columns[found[0]]

    def require(self, *names: str) -> None:
        missing = [name for name in names if name.lower() not in self.columns]
        if missing:
            where = Where(self.file, self.header_line).heading
            raise UnreadableRoster(f"{where}: no column {', '.join(missing)}. {COLUMNS[self.file]}")

    def at_most(self, limit: int) -> None:
        if len(self.records) > limit:
            raise RosterTooBig(
                f"{self.file or 'The file'} has {len(self.records):,} rows: a roster holds at "
                f"most {limit:,} people. Split it."
            )

    def rows(self):
        """(where, value) per row: value(column) is its cell, "" when it has none."""
        for line, cells in self.records:

            def value(name: str, cells=cells) -> str:
                index = self.columns.get(name.lower())
                return cells[index] if index is not None and index < len(cells) else ""

            yield Where(self.file, line), value


def plain_table(text: str) -> tuple[Table, bool]:
    """The plain CSV's rows, its columns read under their other names too; and whether a name
    is in two columns (given and family name) rather than one. Excel's semicolons and tabs are
    read too."""
    header = text.lstrip().split("\n", 1)[0]
    table = Table(text, "", delimiter=max(",;\t", key=header.count))
    if "name" not in table.columns and "sourcedid" in table.columns:
        raise UnreadableRoster(
            f"{Where('', table.header_line).heading}: this looks like OneRoster's users.csv: "
            "send the zip with users.csv, classes.csv and enrollments.csv."
        )
    table.also_called(ALSO_CALLED)
    in_two = "name" not in table.columns and {"first name", "last name"} <= table.columns.keys()
    table.require(*(["class"] if in_two else ["name", "class"]))
    table.at_most(MAX_PEOPLE)
    return table, in_two


def name_of(value, in_two: bool) -> tuple[str, str, str]:
    """A row's whole name, first name and last name."""
    if in_two:
        first, last = (" ".join(value(part).split()) for part in ("first name", "last name"))
        return f"{first} {last}".strip(), first, last
    name = " ".join(value("name").split())
    return (name, *split_name(name))


def plain(text: str) -> Roster:
    """A CSV of `name` (or first and last names), `class` and, optionally, `username` and
    `email`, one row per student and class."""
    table, in_two = plain_table(text)
    roster = Roster(rows=len(table.records))
    people: dict[tuple, Person] = {}
    classes: dict[str, RosterClass] = {}
    seen: dict[tuple, Where] = {}
    for where, value in table.rows():
        name, first, last = name_of(value, in_two)
        class_name, username, email = value("class"), value("username"), value("email")
        problem = (
            length_problem(name, "name", MAX_NAME_LENGTH)
            or length_problem(class_name, "class", MAX_CLASS_NAME)
            or (username_problem(username) if username else "")
            or (email_problem(email) if email else "")
        )
        key = (
            ("username", username.lower())
            if username
            else ("name", class_name.lower(), name.lower())
        )
        person = people.get(key)
        if not problem and person and person.name.lower() != name.lower():
            problem = f"the username {username} is {person.name}'s on {person.where}."
        if not problem and (key, class_name.lower()) in seen:
            problem = f"the same student and class as {seen[key, class_name.lower()]}."
        if problem:
            roster.refuse(where, problem)
            continue
        seen[key, class_name.lower()] = where
        if person is None:
            person = people[key] = Person(
                where=where,
                first_name=first,
                last_name=last,
                username=username,
                email=email,
                role="student",
            )
            roster.people.append(person)
        school_class = classes.get(class_name.lower())
        if school_class is None:
            school_class = classes[class_name.lower()] = RosterClass(where=where, name=class_name)
            roster.classes.append(school_class)
        roster.memberships.append(
            Membership(where=where, person=person, school_class=school_class, role="student")
        )
    return roster


def oneroster(texts: dict[str, str]) -> Roster:
    """OneRoster 1.2's users, classes and enrolments, matched by their `sourcedId`s. A person's
    role is users.csv's `role` (OneRoster 1.1 has it there) or, without one, their enrolments'."""
    roster = Roster()
    people = oneroster_users(roster, Table(texts[USERS], USERS))
    classes = oneroster_classes(roster, Table(texts[CLASSES], CLASSES))
    oneroster_enrolments(roster, Table(texts[ENROLLMENTS], ENROLLMENTS), people, classes)
    teaching = {id(m.person) for m in roster.memberships if m.role == "teacher"}
    for person in people.values():
        person.role = person.role or ("teacher" if id(person) in teaching else "student")
    for membership in roster.memberships:
        if membership.role != membership.person.role:
            membership.refuse(
                f"{membership.person.called} is enrolled as a {membership.role}, but is a "
                f"{membership.person.role} on {membership.person.where}."
            )
    return roster


def sourced(roster: Roster, where: Where, sourced_id: str, seen: dict) -> bool:
    """Whether the row's sourcedId is one to read: there, not too long, not seen before."""
    if not sourced_id:
        roster.refuse(where, "no sourcedId.")
    elif len(sourced_id) > MAX_ROSTER_ID:
        roster.refuse(where, f"a sourcedId may have at most {MAX_ROSTER_ID} characters.")
    elif sourced_id in seen:
        roster.refuse(where, f"the sourcedId {sourced_id} is on {seen[sourced_id].where} already.")
    else:
        return True
    return False


def oneroster_users(roster: Roster, table: Table) -> dict[str, Person]:
    table.require("sourcedId", "givenName", "familyName")
    table.at_most(MAX_PEOPLE)
    roster.rows += len(table.records)
    people: dict[str, Person] = {}
    usernames: dict[str, Where] = {}
    for where, value in table.rows():
        if not sourced(roster, where, value("sourcedId"), people):
            continue
        person = people[value("sourcedId")] = Person(
            where=where,
            roster_id=value("sourcedId"),
            first_name=value("givenName"),
            last_name=value("familyName"),
            username=value("username"),
            email=value("email"),
            role=value("role").lower(),
            leaving=value("status").lower() == LEAVING,
        )
        roster.people.append(person)
        if not person.leaving:  # one taken out of its classes needs no name
            person.refuse(user_problem(person, usernames))
            usernames.setdefault(person.username.lower(), where)
    return people


def user_problem(person: Person, usernames: dict[str, Where]) -> str:
    if not person.name:
        return "no givenName or familyName."
    if max(len(person.first_name), len(person.last_name)) > MAX_NAME_LENGTH:
        return f"a givenName or familyName may have at most {MAX_NAME_LENGTH} characters."
    if person.role not in ("", *ROLES):
        return f"the role {person.role}: only students and teachers are imported."
    if person.email and email_problem(person.email):
        return email_problem(person.email)
    if not person.username:
        return ""
    if person.username.lower() in usernames:
        return f"the username {person.username} is on {usernames[person.username.lower()]} already."
    return username_problem(person.username)


def oneroster_classes(roster: Roster, table: Table) -> dict[str, RosterClass]:
    table.require("sourcedId", "title")
    roster.rows += len(table.records)
    classes: dict[str, RosterClass] = {}
    for where, value in table.rows():
        if not sourced(roster, where, value("sourcedId"), classes):
            continue
        school_class = classes[value("sourcedId")] = RosterClass(
            where=where,
            name=value("title"),
            roster_id=value("sourcedId"),
            leaving=value("status").lower() == LEAVING,
        )
        roster.classes.append(school_class)
        if not school_class.leaving:
            school_class.refuse(length_problem(school_class.name, "title", MAX_CLASS_NAME))
    return classes


def oneroster_enrolments(
    roster: Roster, table: Table, people: dict[str, Person], classes: dict[str, RosterClass]
) -> None:
    table.require("classSourcedId", "userSourcedId", "role")
    roster.rows += len(table.records)
    seen: dict[tuple[str, str], Where] = {}
    for where, value in table.rows():
        class_id, user_id = value("classSourcedId"), value("userSourcedId")
        role = value("role").lower()
        if class_id not in classes:
            roster.refuse(where, f"no class {class_id} in classes.csv.")
        elif user_id not in people:
            roster.refuse(where, f"no user {user_id} in users.csv.")
        elif role not in ROLES:
            roster.refuse(where, f"the role {role}: only students and teachers are imported.")
        elif (class_id, user_id) in seen:
            roster.refuse(where, f"the same enrolment as {seen[class_id, user_id]}.")
        else:
            seen[class_id, user_id] = where
            person, school_class = people[user_id], classes[class_id]
            leaving = value("status").lower() == LEAVING
            roster.memberships.append(
                Membership(
                    where=where,
                    person=person,
                    school_class=school_class,
                    role=role,
                    leaving=leaving or person.leaving or school_class.leaving,
                    primary=value("primary").lower() == "true",
                )
            )
