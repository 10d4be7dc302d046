"""What a student's study items take of their storage quota: the text of a deck's cards, a
mindmap's tree and a quiz's questions counts as its characters (User.stored_bytes), so decks,
mindmaps and quizzes typed or imported by the hundred fill no more disk than uploads could
(docs/classroom.md#lockout-quotas-and-rate-limits)."""

import json

from apps.study.errors import OverQuota


def size_of(*values) -> int:
    """Characters of the values as they are stored: text as it is, anything else as JSON."""
    return sum(len(value if isinstance(value, str) else json.dumps(value)) for value in values)


def make_room(owner, size: int, what: str) -> None:
    """Refuse `size` more characters of `owner`'s past their quota. Call it inside the
    transaction that stores them: the same person's other writes wait for it (lock_storage)."""
    if owner.quota_bytes is None or size <= 0:
        return
    owner.lock_storage()
    if size > owner.room_bytes():
        raise OverQuota(owner.over_quota_message(what))
