"""How a generation starts, the same for every kind and for a page or the API: the same request
key finds the item it made before (and only for the same request, even past the rate limit),
the rate limit counts, a student with no storage left is refused (apps/study/quota.py), the
feature checks what is asked and stores the item in "generating", one asked for the class is
handed out, and a worker is queued once the transaction commits."""

import hashlib
import json
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.http import HttpRequest

from apps.accounts import ratelimits
from apps.classes import reach
from apps.classes.models import SchoolClass
from apps.study import kinds, quota, tasks
from apps.study.classsets.models import ClassSet
from apps.study.errors import KeyReused
from apps.study.generation_job import GENERATING


def class_for(user, for_class: bool, class_id: int | None = None) -> SchoolClass | None:
    """The class an item asked "for the class" goes to: the one named, or the one `user`
    teaches (a 404 for one they do not teach); None when it is for no class. Anyone but a
    teacher asking for one is refused (NotATeacher)."""
    if not (for_class or class_id):
        return None
    ClassSet.objects.check_teacher(user)
    return reach.target_class(user, class_id)


def start(
    request: HttpRequest,
    kind: str,
    owner,
    key: str,
    make: Callable[..., tuple[object, bool]],
    *,
    for_class: SchoolClass | None = None,
    **asked,
):
    """The item `make(owner, key=key, **asked)` starts (a feature's start_quiz, start_deck, ...),
    or the one this request key made before; handed out to `for_class` (see `class_for`).
    Raises the feature's StudyError (what is asked is not something it makes) or RateLimited."""
    digest = request_digest(for_class, asked) if key else ""
    sent = asked_before(kinds.get(kind).model, owner, key)  # the same form or call, sent again
    if sent is not None:
        return same_request(sent, digest)
    ratelimits.check(request, "RATE_LIMIT_GENERATION", "study generations")
    quota.check_room(owner, f"A new {kind}")
    item, new = make(owner, key=key, **asked)
    if not new:  # sent twice at the same instant
        return same_request(item, digest)
    if key:
        item.asked = {**item.asked, "request": digest}
        item.save(update_fields=["asked"])
    if for_class:  # its students see it when a worker has made it ready
        ClassSet.objects.hand_out(owner, item, for_class)
    tasks.enqueue(kind, item.pk)
    return item


def request_digest(for_class: SchoolClass | None, asked: dict) -> str:
    """What a request asked for, as a hash: the same whatever order its lists were sent in."""

    def plain(value: object) -> object:
        if hasattr(value, "as_dict"):  # a scope
            return value.as_dict()
        if isinstance(value, list | tuple | set):
            return sorted(value, key=str)
        return value

    fields = {name: plain(value) for name, value in asked.items()}
    fields["for_class"] = for_class.pk if for_class else None
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def same_request(item, digest: str):
    """`item`, which this request key started, if it was started by the same request (one
    started before keys remembered their request counts as the same)."""
    started_by = item.asked.get("request")
    if started_by and started_by != digest:
        raise KeyReused(
            "This Idempotency-Key was used for a different request: "
            "send a new key to ask for something else."
        )
    return item


def asked_before(model, owner, key: str):
    """The item `owner` already asked for with this request key, if any."""
    if not key:
        return None
    return model.objects.filter(owner=owner, request_key=key).first()


def create(model, owner, key: str = "", **fields):
    """A new item in "generating", or the one this request key made before; (item, new?).
    The caller queues a worker for a new one, after the transaction commits."""
    existing = asked_before(model, owner, key)
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            item = model.objects.create(owner=owner, request_key=key, status=GENERATING, **fields)
    except IntegrityError:  # the same request, sent twice at the same instant
        if not key:
            raise
        return model.objects.get(owner=owner, request_key=key), False
    return item, True
