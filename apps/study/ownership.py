"""Who reaches study material: one rule for every study model, teachers included.

`visible_to` is the owner's rows: everything that changes content (edit, rename, delete,
refresh) and every "your quizzes" list goes through it. `readable_by` adds, for a student, what
a teacher handed out to the class once it is ready; the routes a student studies with (play,
review, complete, arrange) read through it, and write only the student's own rows. Which rows
are handed out to a student's class is for class sets to say: apps/study/classsets/models.py,
which sits above this module, declares it with `handed_out_by`, and its `handed_to(student)` is
the one place that says which sets reach a student.

`get_visible` is the one lookup of a row through such a rule, for pages and API alike.
"""

from collections.abc import Callable

from django.db import models
from django.shortcuts import get_object_or_404

# The status of a made item (generation_job.READY; that module builds on this one).
READY = "ready"

# (model, student) -> the pks of its rows handed out to the student's class, as a subquery:
# class sets say.
HandedOutIds = Callable[[type[models.Model], models.Model], models.QuerySet]
handed_out_ids: HandedOutIds


def handed_out_by(ids: HandedOutIds) -> HandedOutIds:
    global handed_out_ids
    handed_out_ids = ids
    return ids


def is_student(user) -> bool:
    """A member of the class: logged in, neither teacher (staff) nor superuser."""
    return user.is_authenticated and not user.is_staff and not user.is_superuser


class ReadableQuerySet(models.QuerySet):
    """Study material its owner reaches, and a student reads once a teacher handed it out to
    the class."""

    # The lookup from a row to the person it belongs to; a card belongs to its deck's owner.
    owner_lookup = "owner"
    # The lookup from a row to the item a class set names: "" for the row itself; a card
    # goes with its deck.
    item_lookup = ""

    def visible_to(self, user):
        """Only the owner ever reaches study material: no one else, and no anonymous visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(**{self.owner_lookup: user})

    def readable_by(self, user):
        """The owner's rows and, for a student, the ready rows handed out to the class. Another
        teacher's sets stay theirs: teachers are not in the class."""
        if not is_student(user):
            return self.visible_to(user)
        return self.filter(models.Q(**{self.owner_lookup: user}) | self._handed_to(user))

    def _handed_to(self, student) -> models.Q:
        """The ready rows handed out to the student's class (a class item still being made, or
        that failed, is the teacher's alone)."""
        if not self.item_lookup:
            return models.Q(pk__in=handed_out_ids(self.model, student), status=READY)
        item = self.model._meta.get_field(self.item_lookup).related_model
        return models.Q(
            **{
                f"{self.item_lookup}__in": handed_out_ids(item, student),
                f"{self.item_lookup}__status": READY,
            }
        )


def get_visible(rows: Callable[..., models.QuerySet], user, **lookups):
    """The row matching `lookups` among `rows(user)`, a rule of who reaches what
    (`Quiz.objects.readable_by`, `Deck.objects.visible_to`, ...). One that does not exist and
    another person's are the same Http404: Django's 404 page, and `{"detail": ...}` with 404
    in the API."""
    return get_object_or_404(rows(user), **lookups)
