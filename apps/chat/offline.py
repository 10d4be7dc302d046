"""Answers when the chat model is too small to write faithfully (the gateway's `faithful` is
False: the embedded SmolLM2): no model writes a word. A calculation, the document list or the
time is answered by its tool, chosen by plain rules; anything else by the sentences of the
search results that best answer the question, quoted with their citations (docs/chat.md).
"""

import json
import re
from itertools import groupby, pairwise

from django.conf import settings

from apps.chat.calculator import CalculatorError, calculate
from apps.chat.evidence import Quote, best_sentences, subject_of

# What the answer records as its model: the words are the documents', not a model's.
EXTRACTIVE = "extractive"

_ASK = r"(?:what(?:'s| is)|how much is|calculate|compute|was ist|wie ?viel ist|berechne|rechne)"
_CALCULATION = re.compile(
    rf"^\s*(?:{_ASK}\s+)?(?P<expression>[\d\s.,+\-*/%^()x×÷]+?)\s*[=?!.]*\s*$", re.IGNORECASE
)
_OPERATOR = re.compile(r"\d\s*(?:\*\*|//|[-+*/%^x×÷])\s*[\d(]")
_DOCUMENTS = re.compile(
    r"\b(?:(?:which|what) (?:documents|files)|list (?:(?:all|my|the) )?(?:documents|files)"
    r"|welche (?:dokumente|dateien)|(?:liste|zeige?) (?:(?:alle|meine) )?(?:dokumente|dateien))\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(?:what time is it|what(?:'s| is) the (?:time|date)|what day is (?:it|today)"
    r"|wie sp[äa]t ist es|welcher tag ist heute|welches datum)\b",
    re.IGNORECASE,
)


def pick_tool(question: str) -> tuple[str, dict] | None:
    """The tool a question plainly asks for, with its arguments; None to search and quote."""
    match = _CALCULATION.match(question)
    if match and _OPERATOR.search(match["expression"]):
        expression = match["expression"].strip()
        expression = expression.replace("÷", "/").replace("^", "**")
        expression = re.sub(r"(?<=[\d)])\s*[x×]\s*(?=[\d(])", " * ", expression)
        try:
            calculate(expression)
        except CalculatorError:
            return None
        return "calculator", {"expression": expression}
    if _DOCUMENTS.search(question):
        return "list_documents", {}
    if _TIME.search(question):
        return "current_time", {}
    return None


def queries(question: str) -> list[str]:
    """What a quoted answer searches for: the question, and before it the options or
    identifiers a "what does X do" question asks about ("-k", "BZ_DATA_ERROR"), which its other
    words drown: "What does the -k option do?" is near in meaning to any option's passage."""
    named = [term for term in subject_of(question) if not term.isalpha()]
    return [" ".join(named), question] if named else [question]


def no_model_line(what: str) -> str:
    """The line above every such answer: who wrote it (nobody) and how to get a writer."""
    return (
        f"*No language model wrote this answer: the offline model is too small to answer "
        f"faithfully, so {what}. For written answers, install Ollama and run "
        f"`ollama pull {settings.LLM_MODEL}`.*"
    )


def tool_answer(name: str, result: str) -> str:
    """The tool's result (`Toolbox.run`'s JSON) as the answer's Markdown."""
    value = json.loads(result)
    if "error" in value:
        body = f"The {name.replace('_', ' ')} could not answer: {value['error']}."
    elif name == "calculator":
        body = f"`{value['expression']}` = **{value['result']}**"
    elif name == "list_documents":
        lines = [
            f"- {d['filename']}" + (f" ({d['category']})" if d["category"] else "")
            for d in value["documents"]
        ]
        body = f"Your documents ({len(lines)}):\n\n" + "\n".join(lines)
        if not lines:
            body = "There are no documents here yet."
    else:
        body = f"It is {value['weekday']}, {value['now']} (the server's clock)."
    what = {
        "calculator": "this is the calculator's result",
        "list_documents": "this is the list of your documents",
    }.get(name, "this is the server's clock")
    return f"{no_model_line(what)}\n\n{body}\n"


def quoted_answer(question: str, citations: list[dict]) -> str:
    """The best sentences of the cited passages, as block quotes with their source numbers."""
    quotes = best_sentences(question, citations)
    if not citations:
        body = "Nothing in your documents matches this question."
    elif not quotes:
        body = "The passages found have no sentence to quote; they are under Sources."
    else:
        body = "\n\n".join(_paragraphs(quotes))
    what = "these are the sentences of your documents that best match the question, as they stand"
    return f"{no_model_line(what)}\n\n{body}\n"


def _paragraphs(quotes: list[Quote]) -> list[str]:
    """Each document named once, then one block quote per run of sentences of one passage."""
    paragraphs: list[str] = []
    for _, in_document in groupby(quotes, key=lambda q: q.citation["document_id"]):
        in_document = list(in_document)
        paragraphs.append(f"From **{in_document[0].citation['filename']}**:")
        for _, run in groupby(in_document, key=lambda q: q.citation["chunk_id"]):
            run = list(run)
            text = run[0].citation["text"]
            quoted = run[0].text
            for before, quote in pairwise(run):
                # Sentences apart in the passage are kept apart by an ellipsis.
                gap = text[before.end : quote.start].strip()
                quoted += (" … " if gap else " ") + quote.text
            paragraphs.append(f"> {quoted} [{run[0].citation['number']}]")
    return paragraphs
