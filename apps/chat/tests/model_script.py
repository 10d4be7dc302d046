"""How the fake model answers the chat: think when asked to, search the notes once with the
question, then answer. The chat tests, the chat browser test and the benchmark pass
`chat_script` to the fake Ollama server (apps.llm.tests.fake_ollama)."""

from apps.llm.tests.fake_ollama import part, words

ANSWER = "Mitochondria make ATP, the cell's energy currency [1]."
EMBEDDING = [1.0, 0.0, 0.0]  # the vector of every text, and of the chunks the tests store


def chat_script(body: dict) -> list[dict]:
    """Think when asked to; with tools, search once for the question; then answer."""
    messages = body.get("messages", [])
    if body.get("think"):
        return [
            part(thinking="The question is about cells. "),
            part(thinking="Search the notes."),
            part("ignored"),
        ]
    last = messages[-1] if messages else {}
    if body.get("tools") and last.get("role") == "user":
        question = last.get("content", "").split("\n\n")[0]
        return [part(tool_calls=[("search_knowledge_base", {"query": question})])]
    return words(ANSWER)
