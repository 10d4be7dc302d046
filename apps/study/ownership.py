"""Who reaches study material: one rule for every study model, teachers included.

`visible_to` is the owner's rows: everything that changes content (edit, rename, delete,
refresh) and every "your quizzes" list goes through it. `readable_by`
(apps/study/classsets/models.py) adds, for a student, what a teacher handed out to the class
once it is ready; the routes a student studies with (play, review, complete, arrange) read
through it, and write only the student's own rows.
"""

from django.db import models

# The status of a made item (generation_job.READY; that module builds on this one).
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
