"""Study material is personal: one `visible_to` for every study model, teachers included."""

from django.db import models


class OwnedQuerySet(models.QuerySet):
    # The lookup from a row to the person it belongs to; a card belongs to its deck's owner.
    owner_lookup = "owner"

    def visible_to(self, user):
        """Only the owner ever reaches study material: no one else, and no anonymous visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(**{self.owner_lookup: user})
