"""People: teachers (staff) who run the class vault, students, and their personal API tokens."""

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models, transaction
from django.db.models import Sum
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.text import slugify

from apps.accounts.sessions import end_sessions

PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud in class


def generate_password() -> str:
    """Three groups of four, e.g. 'kx7p-m2qa-9tzd': easy to copy from paper, ~60 bits."""
    return "-".join("".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(4)) for _ in range(3))


class StudentManager(UserManager):
    def students(self):
        return self.filter(is_staff=False, is_superuser=False).order_by("username")

    def unique_username(self, name: str) -> str:
        base = slugify(name).replace("-", ".")[:140] or "student"
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

    def create_students(self, names: list[str]) -> list[tuple["User", str]]:
        """One student account per non-blank name, with a fresh password shown only now."""
        # Hashing takes a quarter of a second a password: done before the transaction, which
        # would otherwise hold the database's write lock (which every token request needs to
        # note its use) for a minute while a class of 200 is made.
        accounts = []
        for name in filter(None, (name.strip() for name in names)):
            password = generate_password()
            accounts.append((name, password, make_password(password)))
        created = []
        with transaction.atomic():
            for name, password, hashed in accounts:
                first, _, last = name.partition(" ")
                user = self.model(
                    username=self.unique_username(name),
                    first_name=first,
                    last_name=last,
                    password=hashed,
                )
                user.save(using=self._db)
                created.append((user, password))
        return created


class User(AbstractUser):
    objects = StudentManager()

    @property
    def is_teacher(self) -> bool:
        return self.is_staff

    # --- Storage quota: a student's vault documents and chat attachments together ----------

    @property
    def quota_bytes(self) -> int | None:
        """None: no limit (teachers, or STUDENT_QUOTA_MB=0)."""
        if self.is_teacher or settings.STUDENT_QUOTA_MB <= 0:
            return None
        return settings.STUDENT_QUOTA_MB * 1024 * 1024

    def stored_bytes(self) -> int:
        documents = self.documents.aggregate(total=Sum("size_bytes"))["total"] or 0
        attachments = self.chat_attachments.aggregate(total=Sum("size_bytes"))["total"] or 0
        return documents + attachments

    def room_bytes(self, freed: int = 0) -> int | None:
        """Bytes this person may still store (after `freed` bytes are replaced), None: any."""
        if self.quota_bytes is None:
            return None
        return max(self.quota_bytes - self.stored_bytes() + freed, 0)

    def over_quota_message(self, name: str) -> str:
        return (
            f"{name}: this would go over your storage quota of "
            f"{filesizeformat(self.quota_bytes)} ({filesizeformat(self.stored_bytes())} used). "
            "Delete documents you no longer need, or ask your teacher."
        )

    def save(self, *args, **kwargs) -> None:
        # set_password() keeps the new raw password until the save; an existing account whose
        # password changes (a reset, the person's own change, the admin, `changepassword`)
        # loses its API tokens, sessions and websockets: whoever knew the old one is out.
        changed = self._password is not None and self.pk is not None
        super().save(*args, **kwargs)
        if changed:
            self.api_tokens.all().delete()
            end_sessions(self)

    def reset_password(self) -> str:
        password = generate_password()
        self.set_password(password)
        self.save(update_fields=["password"])
        return password


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def visible_to(self, user: User):
        return self.filter(user=user)

    def issue(self, user: User, name: str) -> tuple["ApiToken", str]:
        """Create a token and return it with its secret, which is never stored nor shown again."""
        raw = "cv_" + secrets.token_urlsafe(32)
        token = self.create(
            user=user, name=name or "API token", key_hash=hash_token(raw), prefix=raw[:7]
        )
        return token, raw

    def authenticate(self, raw: str) -> User | None:
        token = self.select_related("user").filter(key_hash=hash_token(raw)).first()
        if token is None or not token.user.is_active:
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

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
