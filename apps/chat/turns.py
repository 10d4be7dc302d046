"""Starting an answer from what a person sent: the question, its scope and attachments,
validated the same way for the websocket and the API. Each returns the empty answer message
the agent then writes."""

from collections.abc import Iterable

from django.db import transaction

from apps.chat.models import Attachment, Message, Thread
from apps.vault.models import Category, Document

MAX_QUESTION = 8_000
MAX_ATTACHMENTS = 5
MAX_ID = 2**63 - 1  # the database's largest key; a bigger number names nothing


class AskError(ValueError):
    """Bad input; the message is shown to the person as it is."""


def ids(value) -> list[int]:
    """Form values arrive as a string, a list of strings, or nothing."""
    if value in (None, ""):
        return []
    values = value if isinstance(value, list | tuple) else [value]
    try:
        numbers = sorted({int(item) for item in values if str(item).strip()})
    except (TypeError, ValueError) as error:
        raise AskError("The scope must name categories and documents by their ids.") from error
    if any(not 0 < number <= MAX_ID for number in numbers):
        raise AskError("The scope names a category or document that does not exist.")
    return numbers


def resolve_scope(user, category_ids: Iterable[int], document_ids: Iterable[int]):
    """The scope as stored on the question, and its badge; unknown ids are refused."""
    category_ids, document_ids = list(category_ids), list(document_ids)
    categories = list(Category.objects.filter(pk__in=category_ids))
    documents = list(Document.objects.visible_to(user).filter(pk__in=document_ids))
    if len(categories) != len(set(category_ids)) or len(documents) != len(set(document_ids)):
        raise AskError("The scope names a category or document that does not exist.")
    scope = {
        "category_ids": [c.pk for c in categories],
        "document_ids": [d.pk for d in documents],
    }
    names = [f"category {c.name}" for c in categories] + [d.filename for d in documents]
    return scope, ", ".join(names)


def clean_question(content) -> str:
    content = str(content or "").strip()
    if not content:
        raise AskError("Type a question first.")
    if len(content) > MAX_QUESTION:
        raise AskError(f"Questions are limited to {MAX_QUESTION:,} characters.")
    return content


def check_idle(thread: Thread) -> None:
    from apps.chat.streaming import running

    if thread.pk in running:
        raise AskError("An answer is still being written; stop it or wait for it.")
    thread.settle_interrupted()


def ask(user, thread: Thread, content, category_ids=(), document_ids=(), attachment_ids=()):
    content = clean_question(content)
    scope, label = resolve_scope(user, ids(category_ids), ids(document_ids))
    wanted = ids(attachment_ids)
    if len(wanted) > MAX_ATTACHMENTS:
        raise AskError(f"At most {MAX_ATTACHMENTS} attachments per message.")
    attachments = list(
        Attachment.objects.visible_to(user).filter(pk__in=wanted, message__isnull=True)
    )
    if len(attachments) != len(wanted):
        raise AskError("An attachment is missing or was already sent; attach it again.")
    with transaction.atomic():
        check_idle(thread)
        return thread.ask(content, scope, label, attachments)


def edit(user, thread: Thread, message_id, content) -> Message:
    content = clean_question(content)
    question = thread.messages.filter(pk__in=ids(message_id), role=Message.Role.USER).first()
    if question is None:
        raise AskError("That question is no longer in this chat.")
    with transaction.atomic():
        check_idle(thread)
        return thread.rewind(question, content)


def regenerate(user, thread: Thread) -> Message:
    with transaction.atomic():
        check_idle(thread)
        answer = thread.regenerate()
    if answer is None:
        raise AskError("There is no question to answer again.")
    return answer
