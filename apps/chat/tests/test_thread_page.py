import pytest

from apps.chat.models import Thread

pytestmark = pytest.mark.django_db


def test_the_conversation_is_not_mistaken_for_notifications(alice, alice_client):
    """Django's message framework owns the name `messages` in the page shell."""
    thread = Thread.objects.create(owner=alice)
    thread.ask("What makes ATP?", {}, "")
    page = alice_client.get(f"/chat/{thread.pk}/").text
    assert '<ul class="messages">' not in page
    assert page.count("What makes ATP?") >= 2  # the title and the question bubble
