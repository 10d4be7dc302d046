"""How a generation starts, the same for every kind and for a page or the API: the same request
key finds the item it made before, the rate limit counts, the feature checks what is asked and
stores the item in "generating", one asked for the class is handed out, and a worker is queued
once the transaction commits."""

from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.http import HttpRequest

from apps.accounts import ratelimits
from apps.classes import reach
from apps.classes.models import SchoolClass
from apps.study import kinds, tasks
from apps.study.classsets.models import ClassSet
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
    sent = asked_before(kinds.get(kind).model, owner, key)  # the same form or call, sent again
    if sent is not None:
        return sent
    ratelimits.check(request, "RATE_LIMIT_GENERATION", "study generations")
    item, new = make(owner, key=key, **asked)
    if new:
        if for_class:  # its students see it when a worker has made it ready
            ClassSet.objects.hand_out(owner, item, for_class)
        tasks.enqueue(kind, item.pk)
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
