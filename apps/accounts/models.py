"""People: teachers (staff) who run the class vault, students with their login cards, the
batches a class is created in, and everyone's personal API tokens."""

import base64
import hashlib
import json
import re
import secrets
from typing import NamedTuple

from cryptography.fernet import Fernet
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models, transaction
from django.db.models import Value
from django.db.models.functions import Coalesce, Lower, NullIf
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.text import slugify

from apps.accounts import card_keys
from apps.accounts.quota import StorageQuota
from apps.accounts.sessions import end_sessions

PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud in class


def generate_password() -> str:
    """Three groups of four, e.g. 'kx7p-m2qa-9tzd': easy to copy from paper, ~60 bits."""
    return "-".join("".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(4)) for _ in range(3))


class NoCardForTeachers(Exception):
    """Teachers log in with their password only: a lost card must never open a teacher's
    account."""


# Words of a person's name: letters, with hyphens, apostrophes and full stops between them.
NAME_PART = re.compile(r"[^\W\d_][\w'’.\- ]*", re.UNICODE)


def split_name(name: str) -> tuple[str, str]:
    """First and last name of a name on one line: "Ada King Lovelace" is Ada, King Lovelace;
    "Lovelace, Ada King" (family name first, as a school's lists sort) is the same person."""
    last, comma, first = name.partition(",")
    if comma and all(NAME_PART.fullmatch(part.strip()) for part in (first, last)):
        return " ".join(first.split()), " ".join(last.split())
    first, _, last = name.strip().partition(" ")
    return first, last.strip()


class NewPerson(NamedTuple):
    """An account to make: its username is made from the name when not given."""

    first_name: str
    last_name: str
    username: str = ""
    roster_id: str = ""  # its OneRoster sourcedId
    teacher: bool = False
    email: str = ""  # from a roster: what a gradebook matches marks by


# Letters a username spells out as their language writes them without accents: "Müller" is
# "mueller" (not "muller"), "Søren" is "soeren" (slugify drops the "ø"). Other accents go.
SPELLED_OUT = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe", "œ": "oe", "å": "aa"}
    | {"Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "Æ": "Ae", "Ø": "Oe", "Œ": "Oe", "Å": "Aa", "ł": "l"}
    | {"Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D"}
)


# People as a register lists them: by family name (an account without one by its username),
# then given name.
REGISTER_ORDER = (
    Lower(Coalesce(NullIf("last_name", Value("")), "username")),
    "first_name",
    "username",
)


class StudentManager(UserManager):
    def students(self):
        return self.filter(is_staff=False, is_superuser=False).order_by(*REGISTER_ORDER)

    def unique_username(self, name: str) -> str:
        base = slugify(name.translate(SPELLED_OUT)).replace("-", ".")[:140] or "student"
        # One query for the names taken, not one per try: a class of "Max"es stays fast.
        taken = {
            username.lower()
            for username in self.filter(username__istartswith=base).values_list(
                "username", flat=True
            )
        }
        username, n = base, 1
        while username.lower() in taken:
            n += 1
            username = f"{base}{n}"
        return username

    def create_students(
        self, names: list[str], by: "User | None" = None
    ) -> tuple["StudentBatch", list[tuple["User", str]]]:
        """One student account per non-blank name (its username made from it)."""
        people = [NewPerson(*split_name(name)) for name in names if name.strip()]
        return self.create_people(people, by=by)

    def create_people(
        self, people: list["NewPerson"], by: "User | None" = None
    ) -> tuple["StudentBatch", list[tuple["User", str]]]:
        """An account per person, with a fresh password and, for a student, a login card
        (`printed_card`), shown only now. No password is hashed here (a quarter of a second
        each, a minute for a class of 200): the accounts start with an unusable password, and
        the batch's passwords are hashed by `batches.hash_passwords`, in a worker for a big
        class (docs/classroom.md#creating-a-class). Teachers get no card."""
        created = []
        with transaction.atomic():
            for person in people:
                full_name = f"{person.first_name} {person.last_name}".strip()
                user = self.model(
                    username=person.username or self.unique_username(full_name),
                    first_name=person.first_name,
                    last_name=person.last_name,
                    roster_id=person.roster_id,
                    email=person.email,
                    is_staff=person.teacher,
                    password=make_password(None),  # unusable until its hash is stored
                    card_printed_at=None if person.teacher else timezone.now(),
                )
                user.save(using=self._db)
                if not person.teacher:
                    user.printed_card, user.card_key_hash = card_keys.new_card(user.pk)
                created.append((user, generate_password()))
            students = [user for user, _ in created if not user.is_staff]
            self.bulk_update(students, ["card_key_hash"])
            CardEvent.objects.bulk_create(
                CardEvent(user=user, kind=CardEvent.Kind.PRINTED, by=by) for user in students
            )
            batch = StudentBatch.objects.create(created_by=by, total=len(created))
            batch.seal({user.pk: password for user, password in created})
        return batch, created

    def create_teachers(self, names: list[str]) -> list[tuple["User", str]]:
        """A teacher's account per name, its password shown only now and working at once (a
        school adds a few teachers at a time, so they are hashed here)."""
        created = []
        with transaction.atomic():
            for name in dict.fromkeys(filter(None, (name.strip() for name in names))):
                first, _, last = name.partition(" ")
                password = generate_password()
                user = self.create_user(
                    self.unique_username(name),
                    password=password,
                    first_name=first[:150],
                    last_name=last[:150],
                    is_staff=True,
                )
                created.append((user, password))
        return created


class User(StorageQuota, AbstractUser):
    # The login card (docs/classroom.md#login-cards): the SHA-256 of its random key, never the
    # key; a new card gets a new key, a revoked card leaves it empty.
    card_key_hash = models.CharField(max_length=64, blank=True, default="")
    card_printed_at = models.DateTimeField(null=True, blank=True)
    # The person's `sourcedId` in a OneRoster roster, so importing it again updates them.
    roster_id = models.CharField(max_length=255, blank=True, default="")

    objects = StudentManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["roster_id"], condition=~models.Q(roster_id=""), name="one_roster_user"
            )
        ]

    @property
    def is_teacher(self) -> bool:
        return self.is_staff

    @property
    def is_admin(self) -> bool:
        """The school's admin (the first account): adds teachers and reaches every class."""
        return self.is_superuser

    @property
    def may_have_card(self) -> bool:
        return not (self.is_staff or self.is_superuser)

    @property
    def has_card(self) -> bool:
        return bool(self.card_key_hash)

    def new_card(self, by: "User | None" = None) -> str:
        """A new login card, its token kept on this object as `printed_card` for the sheet
        printed now (and never stored): the old card stops working, and every session and
        API token it opened ends."""
        if not self.may_have_card:
            raise NoCardForTeachers(f"{self.username} is a teacher: teachers get no login card.")
        token, self.card_key_hash = card_keys.new_card(self.pk)
        self.card_printed_at = timezone.now()
        self._end_card(CardEvent.Kind.PRINTED, by)
        self.printed_card = token
        return token

    def revoke_card(self, by: "User | None" = None) -> None:
        """A lost card: it stops working, and every session and API token it opened ends."""
        self.card_key_hash, self.card_printed_at = "", None
        self._end_card(CardEvent.Kind.REVOKED, by)

    def _end_card(self, kind: str, by: "User | None") -> None:
        self.save(update_fields=["card_key_hash", "card_printed_at"])
        self.api_tokens.filter(opened_by_card=True).delete()
        CardEvent.objects.create(user=self, kind=kind, by=by)
        end_sessions(self, by_badge=True)

    def save(self, *args, **kwargs) -> None:
        # set_password() keeps the new raw password until the save; an existing account whose
        # password changes (a reset, the person's own change, the admin, `changepassword`)
        # loses its API tokens, sessions and websockets: whoever knew the old one is out.
        changed = self._password is not None and self.pk is not None
        super().save(*args, **kwargs)
        if changed:
            self.api_tokens.all().delete()
            end_sessions(self)

    def reset_password(self, by: "User | None" = None) -> str:
        """A new password and, for a student, a new login card: whoever had either is out."""
        password = generate_password()
        self.set_password(password)
        self.save(update_fields=["password"])
        if self.may_have_card:
            self.new_card(by=by)
        return password


def batch_cipher() -> Fernet:
    key = salted_hmac("apps.accounts.StudentBatch", "passwords", algorithm="sha256").digest()
    return Fernet(base64.urlsafe_b64encode(key))


class StudentBatch(models.Model):
    """Accounts created together, whose printed passwords are hashed after the request. Until
    then the passwords wait here, encrypted with a key derived from SECRET_KEY, and are erased
    once hashed; the Classroom page lists a batch that is not ready."""

    class Status(models.TextChoices):
        HASHING = "hashing"
        READY = "ready"
        FAILED = "failed"

    created_by = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.HASHING)
    total = models.PositiveIntegerField()
    hashed = models.PositiveIntegerField(default=0)
    sealed_passwords = models.TextField(blank=True, default="")
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.total} students, {self.created_at:%Y-%m-%d %H:%M} ({self.status})"

    @property
    def ready(self) -> bool:
        return self.status == self.Status.READY

    def seal(self, passwords: dict[int, str]) -> None:
        plain = json.dumps({str(pk): password for pk, password in passwords.items()})
        self.sealed_passwords = batch_cipher().encrypt(plain.encode()).decode()
        self.save(update_fields=["sealed_passwords"])

    def unseal(self) -> dict[int, str]:
        """The passwords still to hash; raises InvalidToken when SECRET_KEY changed since."""
        if not self.sealed_passwords:
            return {}
        plain = batch_cipher().decrypt(self.sealed_passwords.encode())
        return {int(pk): password for pk, password in json.loads(plain).items()}


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def visible_to(self, user: User):
        return self.filter(user=user)

    def issue(self, user: User, name: str, by_card: bool = False) -> tuple["ApiToken", str]:
        """Create a token and return it with its secret, which is never stored nor shown again.
        `by_card`: made in a session a login card opened, so a new card ends it too."""
        raw = "cv_" + secrets.token_urlsafe(32)
        token = self.create(
            user=user,
            name=name or "API token",
            key_hash=hash_token(raw),
            prefix=raw[:7],
            opened_by_card=by_card,
        )
        return token, raw

    def holding(self, raw: str):
        """The token whose secret is `raw`, while its account is active."""
        return self.filter(key_hash=hash_token(raw), user__is_active=True)

    def authenticate(self, raw: str) -> User | None:
        token = self.holding(raw).select_related("user").first()
        if token is None:
            return None
        self.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user


class ApiToken(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=8, help_text="The first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    opened_by_card = models.BooleanField(
        default=False, help_text="Made in a session a login card opened: a new card ends it."
    )

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class CardEvent(models.Model):
    """A student's login card printed or revoked (by whom), or used to log in (from where):
    the student's settings page lists them, so a card nobody should have used shows."""

    class Kind(models.TextChoices):
        PRINTED = "printed"
        REVOKED = "revoked"
        LOGIN = "login"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="card_events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["user", "-at"])]

    def __str__(self) -> str:
        return f"{self.user} card {self.kind} at {self.at:%Y-%m-%d %H:%M}"
