"""Starting an answer from what a person sent: the question, its scope and attachments,
validated the same way for the websocket and the API. Each returns the empty answer message
a chat worker then writes (the caller queues it once it listens to the thread's group)."""

from django.conf import settings
from django.db import transaction

from apps.accounts.ratelimits import RateLimited, check_person
from apps.chat.errors import AskError, ScopeNotFound, ThreadBusy
from apps.chat.models import Attachment, Message, Thread
from apps.vault.errors import ScopeError
from apps.vault.scope import MAX_ID, Scope

MAX_QUESTION = 8_000
MAX_ATTACHMENTS = 5
BUSY_RETRY_SECONDS = 5  # an answer of a few hundred words takes about that long to finish


def ids(value) -> list[int]:
    """Attachment and message ids: a string, a list of strings, or nothing."""
    if value in (None, ""):
        return []
    values = value if isinstance(value, list | tuple) else [value]
    try:
        numbers = sorted({int(item) for item in values if str(item).strip()})
    except (TypeError, ValueError) as error:
        raise AskError("Attachments and messages are named by their ids.") from error
    if any(not 0 < number <= MAX_ID for number in numbers):
        raise AskError("That attachment or message does not exist.")
    return numbers


def resolve_scope(user, category_ids, document_ids) -> tuple[Scope, str]:
    """The scope a question is asked in, and its badge; unknown ids are refused."""
    try:
        scope = Scope.from_input(category_ids, document_ids)
        categories, documents = scope.categories(), scope.chosen_documents(user)
    except ScopeError as error:
        raise ScopeNotFound(str(error)) from error
    names = [f"category {c.name}" for c in categories] + [d.filename for d in documents]
    return scope, ", ".join(names)


def clean_question(content) -> str:
    if not isinstance(content, str | None):  # a socket frame's {"content": {...}}, not its repr
        raise AskError("A question is text; send the form again.")
    content = (content or "").strip()
    if not content:
        raise AskError("Type a question first.")
    if len(content) > MAX_QUESTION:
        raise AskError(f"Questions are limited to {MAX_QUESTION:,} characters.")
    if "\x00" in content:  # no database stores it (PostgreSQL refuses it), nobody types it
        raise AskError("A question cannot contain NUL characters.")
    return content


def check_idle(thread: Thread) -> None:
    if thread.busy():
        raise ThreadBusy("An answer is still being written; stop it or wait for it.")


def check_fair_share(user) -> None:
    """A person's share of the chat workers (docs/classroom.md#a-fair-share-of-the-machine): at
    most CHAT_ANSWERS_IN_PROGRESS answers being written at once, across all their threads, and
    RATE_LIMIT_CHAT_QUESTIONS answers started per period. Raises RateLimited (a 429)."""
    limit = settings.CHAT_ANSWERS_IN_PROGRESS
    if limit and Message.objects.alive().filter(thread__owner=user).count() >= limit:
        raise RateLimited(
            f"You already have {limit} answer{'s' if limit > 1 else ''} being written: "
            "ask again when one has finished.",
            BUSY_RETRY_SECONDS,
        )
    check_person(user, "RATE_LIMIT_CHAT_QUESTIONS", "questions")


def ask(user, thread: Thread, content, category_ids=(), document_ids=(), attachment_ids=()):
    content = clean_question(content)
    scope, label = resolve_scope(user, category_ids, document_ids)
    wanted = ids(attachment_ids)
    if len(wanted) > MAX_ATTACHMENTS:
        raise AskError(f"At most {MAX_ATTACHMENTS} attachments per message.")
    attachments = wanted and list(
        Attachment.objects.visible_to(user).filter(pk__in=wanted, message__isnull=True)
    )
    if len(attachments) != len(wanted):
        raise AskError("An attachment is missing or was already sent; attach it again.")
    for attachment in attachments:
        if attachment.refusal():
            raise AskError(attachment.refusal())
    with transaction.atomic():
        check_idle(thread)
        check_fair_share(user)
        return thread.ask(content, scope.as_dict(), label, attachments)


def edit(user, thread: Thread, message_id, content) -> Message:
    content = clean_question(content)
    question = thread.messages.filter(pk__in=ids(message_id), role=Message.Role.USER).first()
    if question is None:
        raise AskError("That question is no longer in this chat.")
    with transaction.atomic():
        check_idle(thread)
        check_fair_share(user)
        return thread.rewind(question, content)


def regenerate(user, thread: Thread) -> Message:
    with transaction.atomic():
        check_idle(thread)
        check_fair_share(user)
        answer = thread.regenerate()
    if answer is None:
        raise AskError("There is no question to answer again.")
    return answer
