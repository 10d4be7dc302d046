"""Who reaches study material: one rule for every study model, teachers included.

`visible_to` is the owner's rows: everything that changes content (edit, rename, delete,
refresh) and every "your quizzes" list goes through it. `readable_by` adds, for a student,
what a teacher handed out to the class (a ClassSet) once it is ready; the routes a student
studies with (play, review, complete, arrange) read through it, and write only the student's
own rows.
"""

from django.db import models

# The status of a made item (generated.READY; that module builds on this one).
READY = "ready"


def is_student(user) -> bool:
    """A member of the class: logged in, neither teacher (staff) nor superuser."""
    return user.is_authenticated and not user.is_staff and not user.is_superuser


class OwnedQuerySet(models.QuerySet):
    # The lookup from a row to the person it belongs to; a card belongs to its deck's owner.
    owner_lookup = "owner"
    # The lookup from a row to the class sets handing it out; a card goes with its deck.
    class_set_lookup = "class_sets"
    # The lookup from a row to the status of the item handed out (see apps/study/generated.py):
    # a class item still being made, or that failed, is the teacher's alone.
    item_status_lookup = "status"

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
        # One class set per item at most (a unique constraint), so the join adds no rows.
        return self.filter(models.Q(**{self.owner_lookup: user}) | self._handed_out())

    def handed_out(self):
        """The rows handed out to the class that students see: the ready ones."""
        return self.filter(self._handed_out())

    def _handed_out(self) -> models.Q:
        return models.Q(
            **{f"{self.class_set_lookup}__isnull": False, self.item_status_lookup: READY}
        )
