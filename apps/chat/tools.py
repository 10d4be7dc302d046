"""The agent's six tools: their specs for the model's tool calling, and running them.

Every tool only reads. Nothing a document says can change data, so text retrieved from the
vault is passed back to the model as data and never reaches a tool with side effects.
Tools that need the model call the gateway directly (a single inner call), never the agent.
"""

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from apps.chat.calculator import CalculatorError, calculate
from apps.llm import gateway, prompts
from apps.vault.errors import ScopeError
from apps.vault.models import Chunk, Document
from apps.vault.scope import WHOLE_VAULT, Scope
from apps.vault.search.query import search as search_chunks

log = logging.getLogger(__name__)

SEARCH_TOP_K = 7
DOCUMENT_CHARS = 12_000  # of a document's text given to an inner analyze/compare call
MAX_LISTED = 100


def _spec(name: str, description: str, **parameters: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    key: {"type": "string", "description": text} for key, text in parameters.items()
                },
                "required": list(parameters),
            },
        },
    }


SPECS = [
    _spec(
        "search_knowledge_base",
        "Search the user's documents (hybrid keyword + meaning search) and return the most "
        "relevant passages with document name and page. Use it for any question about the "
        "documents.",
        query="what to look for, in the words the documents would use",
    ),
    _spec("list_documents", "List the documents in the user's vault (within the scope)."),
    _spec(
        "analyze_document",
        "Summarise one document: topics, entities, key facts and a summary.",
        filename="the document's file name, as list_documents shows it",
    ),
    _spec(
        "compare_documents",
        "Compare two documents with respect to a question.",
        doc_a="file name of the first document",
        doc_b="file name of the second document",
        question="what to compare",
    ),
    _spec(
        "calculator",
        "Evaluate an arithmetic expression exactly (numbers and + - * / // % ** and brackets).",
        expression="e.g. (17.5 * 3) / 4",
    ),
    _spec("current_time", "The current date and time of the server."),
]
# Each tool's argument names, checked before it runs.
PARAMETERS = {
    spec["function"]["name"]: set(spec["function"]["parameters"]["properties"]) for spec in SPECS
}


@dataclass
class Toolbox:
    """One request's tools: who asks, within which scope, and the citations found so far.

    A fresh toolbox per answer keeps concurrent chats from sharing anything mutable.
    """

    user: object
    scope: Scope = WHOLE_VAULT
    citations: list[dict] = field(default_factory=list)

    def run(self, name: str, arguments: dict) -> str:
        tool: Callable[..., object] | None = {
            "search_knowledge_base": self.search_knowledge_base,
            "list_documents": self.list_documents,
            "analyze_document": self.analyze_document,
            "compare_documents": self.compare_documents,
            "calculator": self.calculator,
            "current_time": self.current_time,
        }.get(name)
        if tool is None:
            return _json({"error": f"there is no tool named {name!r}"})
        arguments = {key: str(value) for key, value in (arguments or {}).items()}
        unknown = set(arguments) - PARAMETERS[name]
        if unknown:
            takes = ", ".join(sorted(PARAMETERS[name])) or "no arguments"
            return _json({"error": f"{name} takes {takes}; it has no {', '.join(sorted(unknown))}"})
        try:
            return _json(tool(**arguments))
        except ToolError as error:
            return _json({"error": str(error)})

    # --- The tools ----------------------------------------------------------------------

    def search_knowledge_base(self, query: str = "") -> object:
        query = query.strip()
        if not query:
            raise ToolError("give a search query")
        try:
            hits = search_chunks(self.user, query, k=SEARCH_TOP_K, scope=self.scope)
        except ScopeError as error:
            raise ToolError(f"the search scope is not valid: {error}") from error
        results = []
        for hit in hits:
            citation = self.cite(hit)
            results.append(
                {
                    "source": citation["number"],
                    "document": citation["filename"],
                    "page": citation["page"],
                    "section": citation["section"],
                    "text": citation["text"],
                }
            )
        if not results:
            return {"results": [], "note": "nothing in the documents matches this query"}
        return {"results": results}

    def cite(self, hit) -> dict:
        """Record a search hit (a `search.query.Hit`) once; its number is what the answer cites."""
        for citation in self.citations:
            if citation["chunk_id"] == hit.chunk_id:
                return citation
        citation = {
            "number": len(self.citations) + 1,
            "chunk_id": hit.chunk_id,
            "document_id": hit.document_id,
            "filename": hit.filename,
            "page": hit.page,
            "section": hit.section or "",
            "text": hit.text,
            "score": float(hit.score),
        }
        self.citations.append(citation)
        return citation

    def list_documents(self) -> object:
        documents = self.documents().order_by("filename")[:MAX_LISTED]
        return {
            "documents": [
                {
                    "filename": document.filename,
                    "category": document.category.name if document.category else None,
                    "pages": document.pages,
                    "status": document.status,
                }
                for document in documents.select_related("category")
            ]
        }

    def analyze_document(self, filename: str = "") -> object:
        document = self.document(filename)
        text = document_text(document)
        answer = gateway.complete(
            [
                {"role": "system", "content": prompts.render("chat_analyze")},
                {"role": "user", "content": f"Document: {document.filename}\n\n{text}"},
            ]
        )
        return {"document": document.filename, "analysis": answer.strip()}

    def compare_documents(self, doc_a: str = "", doc_b: str = "", question: str = "") -> object:
        first, second = self.document(doc_a), self.document(doc_b)
        half = DOCUMENT_CHARS // 2
        answer = gateway.complete(
            [
                {"role": "system", "content": prompts.render("chat_compare")},
                {
                    "role": "user",
                    "content": f"Question: {question or 'How do they differ?'}\n\n"
                    f"Document A: {first.filename}\n{document_text(first, half)}\n\n"
                    f"Document B: {second.filename}\n{document_text(second, half)}",
                },
            ]
        )
        return {"documents": [first.filename, second.filename], "comparison": answer.strip()}

    def calculator(self, expression: str = "") -> object:
        try:
            return {"expression": expression, "result": calculate(expression)}
        except CalculatorError as error:
            raise ToolError(f"cannot calculate {expression[:80]!r}: {error}") from error

    def current_time(self) -> object:
        now: datetime = timezone.localtime()
        return {"now": now.isoformat(timespec="seconds"), "weekday": now.strftime("%A")}

    # --- Helpers --------------------------------------------------------------------------

    def documents(self):
        try:
            return self.scope.documents(self.user)
        except ScopeError as error:  # a document deleted since the question was asked
            raise ToolError(f"the search scope is not valid: {error}") from error

    def document(self, filename: str) -> Document:
        name = filename.strip()
        found = self.documents().filter(filename__iexact=name).first()
        if found is None and name:
            found = self.documents().filter(filename__icontains=name).first()
        if found is None:
            raise ToolError(f"no document named {filename!r}; call list_documents first")
        return found


class ToolError(Exception):
    pass


def document_text(document: Document, limit: int = DOCUMENT_CHARS) -> str:
    parts, size = [], 0
    chunks = Chunk.objects.filter(document=document, document_sha256=document.sha256)
    for text in chunks.order_by("ordinal").values_list("text", flat=True).iterator():
        parts.append(text)
        size += len(text)
        if size >= limit:
            break
    return "\n\n".join(parts)[:limit] or "(this document has no extracted text yet)"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
