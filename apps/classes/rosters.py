"""Who is in a class, and how they get there: accounts made for it, existing students added by
a teacher, co-teachers added by its owner, students joining with its code. Roster files (a CSV,
a OneRoster zip) end up here too (roster_files.py)."""

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models.functions import Lower

from apps.accounts import tasks
from apps.accounts.models import NewPerson, StudentBatch, User
from apps.classes import reach, roster_files
from apps.classes.errors import ClassError, NotAStudent, WrongCode
from apps.classes.models import Enrolment, SchoolClass, normalise_code
from apps.classes.roster_rows import Membership, Person, Roster, RosterClass, RowError


class RosterRefused(ClassError):
    status = 422


def create_students(
    school_class: SchoolClass, names: list[str], by: User
) -> tuple[StudentBatch, list[tuple[User, str]]]:
    """One account per name, in `school_class`, each with a password and a login card shown
    only now; a worker stores the passwords (apps/accounts/batches.py)."""
    with transaction.atomic():
        batch, created = User.objects.create_students(names, by=by)
        school_class.enrol([user for user, _ in created], Enrolment.Role.STUDENT, batch=batch)
    tasks.start(batch)
    return batch, created


def addable(user):
    """The students `user` may add to a class by name: the admin any; a teacher those they
    teach already, and those in no class yet. Anyone else joins with the class's code, so no
    teacher reaches another teacher's students by adding them."""
    if user.is_admin:
        return User.objects.students()
    in_a_class = Enrolment.objects.filter(role=Enrolment.Role.STUDENT).values("user")
    return reach.students(user) | User.objects.students().exclude(pk__in=in_a_class)


def enrol_existing(user, school_class: SchoolClass, usernames: list[str]) -> tuple[list, list]:
    """(enrolled, not found): a name that is not one of `addable` is not found, whether or not
    such an account exists."""
    wanted = {name.strip().lower(): name.strip() for name in usernames}
    named = addable(user).annotate(lower=Lower("username")).filter(lower__in=wanted)
    found = {student.lower: student for student in named}
    school_class.enrol(found.values(), Enrolment.Role.STUDENT)
    enrolled = sorted(student.username for student in found.values())
    return enrolled, sorted(name for key, name in wanted.items() if key not in found)


def add_teacher(school_class: SchoolClass, username: str) -> User:
    teacher = User.objects.filter(username__iexact=username.strip(), is_staff=True).first()
    if teacher is None:
        raise RosterRefused(f"No teacher's account is called {username.strip()!r}.")
    school_class.enrol([teacher], Enrolment.Role.TEACHER)
    return teacher


def join(user: User, code: str) -> SchoolClass:
    """`user` (a student) joins the class whose code they typed."""
    if user.is_teacher:
        raise NotAStudent("Teachers join a class when its owner adds them; codes are for students.")
    school_class = SchoolClass.objects.filter(code=normalise_code(code)).first()
    if school_class is None:
        raise WrongCode("No class has this code. Check it with your teacher.")
    school_class.enrol([user], Enrolment.Role.STUDENT)
    return school_class


@dataclass
class Imported:
    """What a roster import did or, held back by errors, what it would do once confirmed."""

    errors: list[RowError]
    good_rows: int
    applied: bool = False
    created: list[tuple[User, str]] = field(default_factory=list)
    updated: int = 0
    batch: StudentBatch | None = None
    school_class: SchoolClass | None = None  # a class the new accounts are in, for their cards


def import_roster(importer: User, data: bytes, confirm: bool = False) -> Imported:
    """Read a roster file (apps/classes/roster_files.py) and check each row against what
    `importer` may reach: a file with a bad row changes nothing, unless `confirm`, when its
    good rows are applied and the bad ones reported. All in one transaction: nothing is half
    made (docs/classroom.md#rosters)."""
    roster = roster_files.read(data)
    try:
        with transaction.atomic():
            look_up(importer, roster)
            errors = roster.errors()
            if errors and not confirm:
                return Imported(errors, roster.good_rows)
            return Imported(errors, roster.good_rows, applied=True, **apply(importer, roster))
    except IntegrityError as error:  # another import or teacher made the same a moment ago
        raise RosterRefused(
            "Some of these accounts or classes changed meanwhile: import again."
        ) from error


def look_up(importer: User, roster: Roster) -> None:
    """Find the classes and accounts the rows name, and refuse the rows `importer` may not
    apply."""
    find_classes(importer, roster.classes)
    find_accounts(roster)
    may_add = addable(importer).filter(
        pk__in=[person.account.pk for person in roster.people if person.account]
    )
    addable_pks = set(may_add.values_list("pk", flat=True))
    for person in roster.people:
        person.refuse(refusal(importer, person, addable_pks))
    roster.leave_out_dependants()
    in_a_class = {id(m.person) for m in roster.memberships if not (m.error or m.leaving)}
    for person in roster.people:
        new = person.account is None and not person.leaving
        if new and person.role == "student" and id(person) not in in_a_class:
            person.refuse("in no class of this roster, so not imported.")
    roster.leave_out_dependants()


def find_classes(importer: User, classes: list[RosterClass]) -> None:
    """A OneRoster class is the one of its sourcedId; a plain CSV's, the one of its name among
    the classes `importer` teaches (none: a new one)."""
    taught = reach.classes(importer)
    sourced = {c.roster_id for c in classes if c.roster_id and not c.error}
    existing = {c.roster_id: c for c in SchoolClass.objects.filter(roster_id__in=sourced)}
    taught_pks = set(
        taught.filter(pk__in=[c.pk for c in existing.values()]).values_list("pk", flat=True)
    )
    names = {c.name.lower() for c in classes if not c.roster_id}
    by_name: dict[str, list[SchoolClass]] = {}
    for found in taught.annotate(lower=Lower("name")).filter(lower__in=names):
        by_name.setdefault(found.lower, []).append(found)
    for school_class in classes:
        if school_class.roster_id:
            school_class.found = existing.get(school_class.roster_id)
            if school_class.found and school_class.found.pk not in taught_pks:
                school_class.refuse(
                    f"the class {school_class.roster_id} is not one you teach: the admin "
                    "imports it."
                )
            continue
        same = by_name.get(school_class.name.lower(), [])
        if len(same) > 1:
            school_class.refuse(
                f"you teach {len(same)} classes called {school_class.name}: rename one first."
            )
        school_class.found = same[0] if same else None


def find_accounts(roster: Roster) -> None:
    """A person is the account of their sourcedId, else of their username; a plain CSV's
    student without one is the student of that name in that class."""
    people = [person for person in roster.people if not person.error]
    sourced = {p.roster_id for p in people if p.roster_id}
    by_roster_id = {u.roster_id: u for u in User.objects.filter(roster_id__in=sourced)}
    usernames = {p.username.lower() for p in people if p.username}
    named = User.objects.annotate(lower=Lower("username")).filter(lower__in=usernames)
    by_username = {user.lower: user for user in named}
    for person in people:
        person.account = by_roster_id.get(person.roster_id) if person.roster_id else None
        if person.account is None and person.username:
            person.account = by_username.get(person.username.lower())
    by_name = [
        m
        for m in roster.memberships
        if not (m.person.username or m.person.roster_id) and m.school_class.found
    ]
    enrolled: dict[tuple[int, str], list[User]] = {}
    students = Enrolment.objects.filter(
        role=Enrolment.Role.STUDENT, school_class__in={m.school_class.found for m in by_name}
    ).select_related("user")
    for enrolment in students:
        key = (enrolment.school_class_id, enrolment.user.get_full_name().lower())
        enrolled.setdefault(key, []).append(enrolment.user)
    for m in by_name:
        same = enrolled.get((m.school_class.found.pk, m.person.name.lower()), [])
        if len(same) > 1:
            m.person.refuse(
                f"{len(same)} students of {m.school_class.name} are called {m.person.name}: "
                "give the username of this one."
            )
        m.person.account = same[0] if len(same) == 1 else None


def refusal(importer: User, person: Person, addable_pks: set[int]) -> str:
    """Why `importer` may not apply this person's row ("" if they may). Another teacher's
    student is refused as if no such account existed."""
    account = person.account
    if person.role == "student":
        if account is not None and account.pk not in addable_pks:
            return f"no student you may add is called {person.called}."
    elif account is None and person.leaving:
        pass  # nobody to take out
    elif account is None or account.pk != importer.pk:
        if not importer.is_admin:
            return f"{person.called} is a teacher: only the admin adds teachers from a roster."
        if account is not None and not account.is_teacher:
            return f"{person.called} has a student's account, not a teacher's."
    if account is not None and person.roster_id and account.roster_id not in ("", person.roster_id):
        return f"the username {person.username} is the sourcedId {account.roster_id}'s."
    return ""


def apply(importer: User, roster: Roster) -> dict:
    """Make the new accounts and classes, update the others, enrol and take out: the rows
    without an error."""
    people = [person for person in roster.people if not person.error]
    existing = [person for person in people if person.account is not None]
    new = [person for person in people if person.account is None and not person.leaving]
    new.sort(key=lambda person: not person.username)  # before any username made from a name
    batch, created = None, []
    if new:
        made = [
            NewPerson(
                p.first_name, p.last_name, p.username, p.roster_id, p.role == "teacher", p.email
            )
            for p in new
        ]
        batch, created = User.objects.create_people(made, by=importer)
        for person, (account, _) in zip(new, created, strict=True):
            person.account = account
    update_accounts([person for person in existing if not person.leaving])
    classes = [c for c in roster.classes if not c.error]
    owners = first_teachers(roster) if importer.is_admin else {}
    for school_class in classes:
        keep_class(school_class, owners.get(id(school_class), importer))
    memberships = [m for m in roster.memberships if not m.error and m.school_class.found]
    enrol(memberships, {account.pk for account, _ in created}, batch)
    take_out(memberships, [p for p in existing if p.leaving], classes)
    if batch is not None:
        tasks.start(batch)
    made = {id(person) for person in new}
    first = next((m.school_class.found for m in memberships if id(m.person) in made), None)
    return {"created": created, "updated": len(existing), "batch": batch, "school_class": first}


def update_accounts(people: list[Person]) -> None:
    """The names (and e-mail addresses, where it has them) the roster gives; an account without
    a sourcedId takes the roster's."""
    fields = ["first_name", "last_name", "email", "roster_id"]
    changed = []
    for person in people:
        account = person.account
        before = [getattr(account, field) for field in fields]
        account.first_name, account.last_name = person.first_name, person.last_name
        account.email = person.email or account.email
        account.roster_id = account.roster_id or person.roster_id
        if [getattr(account, field) for field in fields] != before:
            changed.append(account)
    User.objects.bulk_update(changed, fields)


def keep_class(school_class: RosterClass, owner: User) -> None:
    """Rename a class the roster names anew; make one it names first (not one to delete)."""
    found = school_class.found
    if found is not None and not school_class.leaving and found.name != school_class.name:
        found.name = school_class.name
        found.save(update_fields=["name"])
    if found is not None or school_class.leaving:
        return
    school_class.found = SchoolClass.objects.create_for(owner, school_class.name)
    if school_class.roster_id:  # another import's class of this sourcedId: IntegrityError
        school_class.found.roster_id = school_class.roster_id
        school_class.found.save(update_fields=["roster_id"])


def first_teachers(roster: Roster) -> dict[int, User]:
    """Each class's first teacher in the roster (`primary` first): the admin's new class is
    theirs."""
    teaching = [m for m in roster.memberships if m.role == "teacher" and not (m.error or m.leaving)]
    first: dict[int, User] = {}
    for m in sorted(teaching, key=lambda m: not m.primary):
        first.setdefault(id(m.school_class), m.person.account)
    return first


def enrol(memberships: list[Membership], new_pks: set[int], batch) -> None:
    rows = [
        Enrolment(
            school_class=m.school_class.found,
            user=m.person.account,
            role=m.role,
            batch=batch if m.person.account.pk in new_pks else None,
        )
        for m in memberships
        if not m.leaving
    ]
    Enrolment.objects.bulk_create(rows, ignore_conflicts=True)


def take_out(memberships: list[Membership], leaving: list[Person], classes) -> None:
    """The enrolments marked `tobedeleted`, and people marked so leave the roster's classes;
    the accounts stay, and a class's owner stays its teacher."""
    gone: dict[SchoolClass, set[int]] = {}
    for m in memberships:
        if m.leaving and m.person.account is not None:
            gone.setdefault(m.school_class.found, set()).add(m.person.account.pk)
    for school_class in [c.found for c in classes if c.found is not None]:
        gone.setdefault(school_class, set()).update(person.account.pk for person in leaving)
    for school_class, pks in gone.items():
        if pks:
            school_class.enrolments.filter(user__in=pks).exclude(
                user=school_class.owner_id
            ).delete()
