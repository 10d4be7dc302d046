"""What the thread page's partials show, for the page and for the socket's pushes alike: the
conversation (with the answer being written, if any), the sidebar and the composer."""

from apps.chat.models import Thread
from apps.chat.turns import MAX_ATTACHMENTS
from apps.llm import gateway
from apps.vault.models import Category, Document

STARTERS = [
    "Summarise the key points of my documents.",
    "Which topics do my documents cover?",
    "Quiz me with three questions on my notes.",
    "Explain the hardest concept in my notes simply.",
]


def conversation_context(thread: Thread, live=None) -> dict:
    """Everything the thread's partials need; `live` is the answer being written, if any."""
    user = thread.owner
    messages = list(thread.messages.prefetch_related("attachments"))
    for message in messages:
        message.live = live is not None and message.pk == live.answer_id
        if message.live:
            message.content = "".join(live.text)
            message.thinking = "".join(live.thinking)
            message.citations = live.sources
    return {
        "thread": thread,
        "threads": Thread.objects.visible_to(user),
        # Not "messages": that name belongs to django.contrib.messages in base.html.
        "conversation": messages,
        "streaming": live is not None,
        "memory": thread.memory(),
        "categories": Category.objects.all(),
        "documents": Document.objects.visible_to(user).order_by("filename"),
        "starters": STARTERS,
        "speech": gateway.speech_available,  # called only by the partials that show the microphone
        "max_attachments": MAX_ATTACHMENTS,
    }
