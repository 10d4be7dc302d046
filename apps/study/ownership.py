"""Who reaches study material: one rule for every study model, teachers included.

`visible_to` is the owner's rows: everything that changes content (edit, rename, delete,
refresh) and every "your quizzes" list goes through it. `readable_by`
(apps/study/classsets/models.py) adds, for a student, what a teacher handed out to the class
once it is ready; the routes a student studies with (play, review, complete, arrange) read
through it, and write only the student's own rows.

`get_visible` is the one lookup of a row through such a rule, for pages and API alike.
"""

from collections.abc import Callable

from django.db import models
from django.shortcuts import get_object_or_404

# The status of a made item (generated.READY; that module builds on this one).
READY = "ready"


def is_student(user) -> bool:
    """A member of the class: logged in, neither teacher (staff) nor superuser."""
    return user.is_authenticated and not user.is_staff and not user.is_superuser


class OwnedQuerySet(models.QuerySet):
    # The lookup from a row to the person it belongs to; a card belongs to its deck's owner.
    owner_lookup = "owner"

    def visible_to(self, user):
        """Only the owner ever reaches study material: no one else, and no anonymous visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(**{self.owner_lookup: user})


def get_visible(rows: Callable[..., models.QuerySet], user, **lookups):
    """The row matching `lookups` among `rows(user)`, a rule of who reaches what
    (`Quiz.objects.readable_by`, `Deck.objects.visible_to`, ...). One that does not exist and
    another person's are the same Http404: Django's 404 page, and `{"detail": ...}` with 404
    in the API."""
    return get_object_or_404(rows(user), **lookups)
