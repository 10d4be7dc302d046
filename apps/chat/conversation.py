"""What the thread page's partials show, for the page, the socket and the chat workers alike:
the conversation (with the answer being written as far as it is saved), the sidebar and the
composer; and rendering them as out-of-band fragments for the thread's group."""

from django.template.loader import render_to_string

from apps.chat.forms import ComposerFiles
from apps.chat.models import MEMORY_BUDGET, Thread, answered_pairs, fit_memory
from apps.chat.turns import MAX_ATTACHMENTS
from apps.llm import gateway
from apps.vault.models import Category

STARTERS = [
    "Summarise the key points of my documents.",
    "Which topics do my documents cover?",
    "Quiz me with three questions on my notes.",
    "Explain the hardest concept in my notes simply.",
]


def starters() -> list[str]:
    """The example questions under an empty chat; none when no model writes the answers:
    quoted sentences answer a question about one thing, not "summarise my documents"
    (docs/chat.md). A template calls it only where it shows them."""
    return STARTERS if gateway.current_backend().faithful else []


# Which partials are pushed when: a page (re)connecting gets the whole conversation, and an
# edit or a regenerate, which drop messages, redraw it (and leave the question box alone); a
# finished answer replaces just its own message. Send and Stop follow whether an answer is being
# written. A new question has a frame of its own (render_turn).
WHOLE_PARTS = ("message-list", "thread-list", "composer-buttons", "memory")
END_PARTS = ("message", "thread-list", "composer-buttons", "memory")


def group_for(thread_id: int) -> str:
    """The channel-layer group of everyone watching a thread (pages and API streams)."""
    return f"chat-thread-{thread_id}"


def conversation_context(thread: Thread) -> dict:
    """Everything the thread's partials need."""
    user = thread.owner
    messages = list(thread.messages.prefetch_related("attachments"))
    return {
        "thread": thread,
        "threads": Thread.objects.visible_to(user),
        # Not "messages": that name belongs to django.contrib.messages in base.html.
        "conversation": messages,
        "streaming": any(message.live for message in messages),
        "memory": fit_memory(answered_pairs(messages), 0, MEMORY_BUDGET),
        "categories": Category.objects.all(),
        "files": ComposerFiles(user=user)["document_ids"],
        "starters": starters,
        "speech": gateway.speech_available,  # called only by the partials that show the microphone
        "max_attachments": MAX_ATTACHMENTS,
    }


def fragment(partial: str, **context) -> str:
    return render_to_string(f"chat/thread.html#{partial}", {"oob": True, **context})


def render_parts(thread_id: int, parts: tuple[str, ...], message_id: int | None = None) -> str:
    """The named partials of a thread as one frame; "" when the thread is gone."""
    thread = Thread.objects.filter(pk=thread_id).select_related("owner").first()
    if thread is None:
        return ""
    return render_thread(thread, parts, message_id)


def render_thread(thread: Thread, parts: tuple[str, ...], message_id: int | None = None) -> str:
    """render_parts for a thread just read (with its owner)."""
    context = conversation_context(thread)
    conversation = context["conversation"]
    html = []
    for name in parts:
        if name == "message":
            message = next((m for m in conversation if m.pk == message_id), None)
            if message is not None:
                html.append(fragment(name, **{**context, "message": message}))
        else:
            html.append(fragment(name, **context))
    return "".join(html)


def render_turn(thread: Thread) -> str:
    """The frame for a question just asked (a thread just read, with its owner): the question
    and its empty answer below the conversation (the first turn redraws the list, which clears
    the starters), the sidebar, an empty question box (the scope chosen stays; the memory has
    not changed yet) and Stop. Only the last messages are read, however long the chat."""
    latest = list(thread.messages.order_by("-pk").prefetch_related("attachments")[:3])[::-1]
    context = {"thread": thread, "threads": Thread.objects.visible_to(thread.owner)}
    if len(latest) > 2:
        turn = fragment("new-turn", **context, added=latest[1:])
    else:
        turn = fragment("message-list", **context, conversation=latest)
    return (
        turn
        + fragment("thread-list", **context)
        + fragment("question-box")
        + fragment("composer-buttons", streaming=True)
    )
