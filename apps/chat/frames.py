"""What an answer's pushes carry, shaped once for both readers: rendered fragments for the
thread's pages (out-of-band partials of chat/thread.html) and NDJSON lines for the API stream
(docs/api.md)."""

from apps.chat.agent import Event
from apps.chat.conversation import fragment

INTERRUPTED_LINE = {"type": "error", "data": "The answer was interrupted."}
TOKEN_PARTIALS = {"thinking": "thinking-tokens", "text": "answer-tokens"}


def api_line(event: Event) -> dict | None:
    """An agent event as the API's NDJSON line, or None for one it does not show."""
    if event.type in ("thinking", "text", "memory", "error"):
        return {"type": event.type, "data": event.data}
    if event.type in ("start", "end"):
        return {"type": "metadata", "data": event.data}
    if event.type == "sources":
        return {"type": "metadata", "data": {"sources": event.data}}
    if event.type == "notice":
        return {"type": "metadata", "data": {"notice": event.data}}
    return None


def end_line(answer_id: int, status: str) -> dict:
    """The last line of an answer that ended without its worker's "end" (stopped, or seen)."""
    return {"type": "metadata", "data": {"status": status, "message_id": answer_id}}


def event_html(answer_id: int, event: Event) -> str:
    """What the pages show of an agent event other than tokens ("" for none)."""
    if event.type == "sources":
        return fragment("sources", message_id=answer_id, citations=event.data)
    if event.type == "notice":
        return status_html(answer_id, event.data)
    if event.type == "start":
        return status_html(answer_id, "Working on it…")
    return ""


def status_html(answer_id: int, notice: str, waiting: bool = False) -> str:
    return fragment("status", message_id=answer_id, notice=notice, waiting=waiting)


def tokens(answer_id: int, pending: dict[str, list[str]]) -> tuple[str, list[dict]]:
    """The tokens that arrived since the last frame, as one frame (html, lines)."""
    html, lines = "", []
    for kind, partial in TOKEN_PARTIALS.items():
        if pending.get(kind):
            text = "".join(pending[kind])
            html += fragment(partial, message_id=answer_id, text=text)
            lines.append({"type": kind, "data": text})
    return html, lines


def snapshot_html(answer_id: int, text: str, thinking: str) -> str:
    """The answer so far, whole: a page that missed or repeated a few words is exact again."""
    html = fragment("answer-snapshot", message_id=answer_id, text=text)
    if thinking:
        html += fragment("thinking-snapshot", message_id=answer_id, text=thinking)
    return html
