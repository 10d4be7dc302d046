"""The printed sheet of login cards: the only page that shows a card's QR code and address
(docs/classroom.md#login-cards). A card's key is stored as a hash, so no later page can show
the card again: printing anew makes a new card."""

import unicodedata

import segno
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from apps.accounts import login_cards, tls
from apps.accounts.lan import bases
from apps.accounts.models import StudentBatch, User
from apps.classes.models import Enrolment, SchoolClass

# A QR code's mask chosen once rather than the best of eight per code: a class of 200 codes
# is drawn in a fraction of the time, and any mask scans (ISO/IEC 18004 allows each).
QR_MASK = 0


def card_qr(url: str) -> str:
    """The card's QR code as inline SVG; segno writes it from the URL alone."""
    return mark_safe(segno.make(url, mask=QR_MASK).svg_inline(scale=4, omitsize=True))


def class_names(teacher: User, students: list[User]) -> dict[int, str]:
    """Each student's classes that `teacher` teaches, by name ("7B, Chess club")."""
    found: dict[int, list[str]] = {}
    enrolled = Enrolment.objects.filter(
        user__in=students,
        role=Enrolment.Role.STUDENT,
        school_class__in=SchoolClass.objects.taught_by(teacher),
    ).order_by("school_class__name")
    for user_id, name in enrolled.values_list("user_id", "school_class__name"):
        found.setdefault(user_id, []).append(name)
    return {user_id: ", ".join(names) for user_id, names in found.items()}


def register_order(person: User) -> tuple[str, str]:
    """Family name, then given name, as a register sorts them: "Özdemir" with the O's (DIN 5007),
    not after "Schmidt"."""
    return tuple(
        "".join(
            c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)
        ).casefold()
        for name in (person.last_name, person.first_name)
    )


def heading(person: User, classes: str) -> str:
    """A card's first line: whose it is, and their classes when the sheet holds several."""
    name = person.get_full_name() or person.username
    return f"{name} · {classes}" if classes else name


def issue_missing(students, by: User) -> list[User]:
    """A login card for each of `students` without one (lost, or accounts made before cards)."""
    missing = list(students.filter(card_key_hash=""))
    for student in missing:
        student.new_card(by=by)
    return missing


def shared_names(credentials: list[tuple[User, str | None]]) -> list[tuple[str, list[str]]]:
    """The names that more than one of the new accounts was made for (a list with the same
    name twice), each with the usernames they got: the cards alone do not say which is whom."""
    usernames: dict[str, tuple[str, list[str]]] = {}
    for person, password in credentials:
        name = person.get_full_name()
        if password and name:
            usernames.setdefault(name.casefold(), (name, []))[1].append(person.username)
    return [(name, names) for name, names in usernames.values() if len(names) > 1]


def sheet(
    request: HttpRequest,
    school_class: SchoolClass | None,
    credentials: list[tuple[User, str | None]],
    batch: StudentBatch | None = None,
) -> HttpResponse:
    """The printable cards of students whose card was just made (`printed_card`); a password
    of None is unchanged (a new card only). A teacher's (from a roster) has no QR code; a
    roster's new teachers may be in no class."""
    base = bases(request)[0]
    classes = class_names(request.user, [person for person, _ in credentials])
    if len(set(classes.values())) > 1:  # a roster's classes: by class, each card naming its own
        credentials = sorted(
            credentials, key=lambda card: (classes.get(card[0].pk, ""), register_order(card[0]))
        )
    elif school_class is not None:  # one class: each card names it too, cut out of the sheet
        classes = {person.pk: school_class.name for person, _ in credentials}
    printed = [
        (
            person,
            password,
            card_qr(login_cards.badge_url(base, person.printed_card))
            if person.may_have_card
            else None,
            heading(person, classes.get(person.pk, "")),
        )
        for person, password in credentials
    ]
    context = {
        "school_class": school_class,
        "credentials": printed,
        "shared_names": shared_names(credentials),
        "batch": batch,
        # The server's own address, short enough to type: its home page leads to the login.
        "address": base,
        "fingerprint": tls.fingerprint(),
    }
    response = render(request, "classes/cards.html", context)
    response["Cache-Control"] = "no-store"
    return response
