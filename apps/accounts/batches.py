"""Storing a batch's printed passwords after the request that made its accounts
(docs/classroom.md#creating-a-class): Django's password hash costs a quarter of a second or
more, a minute for a class of 200, which a worker spends instead of the teacher's request."""

from cryptography.fernet import InvalidToken
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, make_password
from django.db import transaction
from django.utils import timezone

from apps.accounts import sessions
from apps.accounts.models import StudentBatch, User

# A batch this small (a latecomer or two) is hashed in the request: its passwords work at once.
HASHED_IN_REQUEST = 3


def hash_passwords(batch_id: int) -> StudentBatch:
    """Hash the batch's passwords and store them; running it again is harmless."""
    batch = StudentBatch.objects.get(pk=batch_id)
    if batch.ready:
        return batch
    try:
        passwords = batch.unseal()
    except InvalidToken:
        batch.status = StudentBatch.Status.FAILED
        batch.error = (
            "The passwords could not be read back (SECRET_KEY changed since). "
            "Reset these students' passwords from the Classroom page."
        )
        batch.save(update_fields=["status", "error"])
        return batch
    # Only accounts still without a password: one the teacher reset meanwhile keeps the
    # password printed last.
    before = dict(
        User.objects.filter(
            pk__in=passwords, password__startswith=UNUSABLE_PASSWORD_PREFIX
        ).values_list("pk", "password")
    )
    hashed = {}
    for done, (pk, password) in enumerate(passwords.items(), 1):
        if pk in before:
            hashed[pk] = make_password(password)
        StudentBatch.objects.filter(pk=batch.pk).update(hashed=done)
    with transaction.atomic():
        for pk, new in hashed.items():
            User.objects.filter(pk=pk, password=before[pk]).update(password=new)
        batch.status, batch.hashed, batch.error = StudentBatch.Status.READY, len(passwords), ""
        batch.sealed_passwords, batch.finished_at = "", timezone.now()
        batch.save()
    sessions.carry_over(
        {pk: (session_hash(before[pk]), session_hash(new)) for pk, new in hashed.items()}
    )
    return batch


def session_hash(password: str) -> str:
    return User(password=password).get_session_auth_hash()
