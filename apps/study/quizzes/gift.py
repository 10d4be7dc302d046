"""GIFT, Moodle's plain-text question format: a bank out (the quiz as a category, the
explanation as the right answer's feedback; pictures and the source passage are left out) and
a file in, read as Moodle's own GIFT importer reads it (docs/study-hub.md#exchange).

Django-free: `read` runs in the reading sandbox.
"""

import html
import re

from apps.study.quizzes.bank import (
    Bank,
    Item,
    add_choice,
    category_title,
    explained,
    true_or_false,
)
from apps.study.quizzes.moodle_xml import NOT_ASKED
from apps.study.untrusted_files import decoded, html_text, plain

WHAT = "GIFT file"
# Escaped control characters stand in for themselves while a question is taken apart.
ESCAPED = {c: chr(0xE000 + i) for i, c in enumerate(":#={}~n")}
RESTORED = {v: ("\n" if k == "n" else k) for k, v in ESCAPED.items()}
FORMATS = ("html", "moodle", "plain", "markdown")


def escape(text: str) -> str:
    for char in "\\#=~{}:":
        text = text.replace(char, "\\" + char)
    return text.replace("\r", "").replace("\n", "\\n")


def write_item(item: Item, number: int, fmt: str) -> str:
    def out(text: str) -> str:
        if fmt:  # as HTML: escaped, its new lines as line breaks
            text = html.escape(text, quote=False).replace("\n", "<br>")
        return escape(text)

    head = f"::Question {number}::{fmt}{out(item.text)}"
    feedback = out(item.explanation)
    if true_or_false(item):
        answer = "TRUE" if item.correct_index == 0 else "FALSE"
        return head + "{" + answer + (f"##{feedback}" if feedback else "") + "}\n"
    lines = []
    for i, option in enumerate(item.options):
        right = i == item.correct_index
        line = ("\t=" if right else "\t~") + out(option)
        lines.append(line + (f"#{feedback}" if right and feedback else ""))
    return head + "{\n" + "\n".join(lines) + "\n}\n"


def write(bank: Bank) -> str:
    parts = [f"// {bank.title}\n$CATEGORY: $course$/top/{bank.title}\n"]
    for number, item in enumerate(bank.items, 1):
        texts = [item.text, item.explanation, *item.options]
        # Text that HTML would misread goes out as HTML, escaped.
        fmt = "[html]" if any("<" in text or "&" in text for text in texts) else ""
        parts.append(write_item(item, number, fmt))
    return "\n".join(parts)


def protect(text: str) -> str:
    """Escaped control characters replaced by stand-ins; `\\\\` is a backslash."""
    out, i = [], 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair == "\\\\":
            out.append("\\")
            i += 2
        elif pair[:1] == "\\" and pair[1:] in ESCAPED:
            out.append(ESCAPED[pair[1:]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def restore(text: str) -> str:
    return "".join(RESTORED.get(char, char) for char in text)


def with_format(text: str, default: str = "moodle") -> tuple[str, str]:
    """(format, text without its [format] marker)."""
    match = re.match(r"\[(\w+)\]", text)
    if match and match.group(1) in FORMATS:
        return match.group(1), text[match.end() :]
    return default, text


def as_text(text: str, fmt: str) -> str:
    text = restore(text.strip())
    if fmt in ("plain", "markdown"):
        return plain(text)
    if fmt == "moodle":  # Moodle's auto-format: HTML where there is some, new lines kept
        text = text.replace("\n", "<br>")
    return html_text(text)[0]


def kind_of(answers: str) -> str:
    """The question type of an answer block, as Moodle decides it."""
    if answers == "":
        return "essay"
    if answers.startswith("#"):
        return "numerical"
    if "~" in answers:
        return "multichoice"
    if "=" in answers and "->" in answers:
        return "match"
    if answers.split("#", 1)[0].strip() in ("T", "TRUE", "F", "FALSE"):
        return "truefalse"
    return "shortanswer"


def read_choices(answers: str, fmt: str) -> tuple[list[tuple[str, bool]], str]:
    """((text, right?) per answer, the right answer's feedback) of a multiple choice block."""
    choices, right_feedback = [], ""
    for raw in answers.replace("=", "~=").split("~"):
        raw = raw.strip()
        if not raw:
            continue
        right = raw.startswith("=")
        # Moodle reads a weight of one or two digits: partial credit, wrong here.
        weight = re.match(r"%-*\d{1,2}\.?\d*%", raw)
        if right:
            raw = raw[1:]
        elif weight:
            raw = raw[weight.end() :]
        option, _, feedback = raw.partition("#")
        if right:
            right_feedback = as_text(feedback, fmt)
        choices.append((as_text(option, fmt), right))
    return choices, right_feedback


def read_question(block: str, bank: Bank, categories: list[str]) -> None:
    text = protect(block)
    if text.startswith("$CATEGORY:"):
        categories.append(restore(text[len("$CATEGORY:") :]).strip())
        return
    index = bank.next_index()
    if text.startswith("::") and "::" in text[2:]:
        text = text[2:].split("::", 1)[1].strip()
    start, end = text.find("{"), text.find("}")
    if start < 0 and end < 0:
        bank.skip(index, "description", NOT_ASKED["description"])
        return
    if start < 0 or end < start:
        bank.skip(index, "unknown", "a brace of its answers is missing")
        return
    answers = text[start + 1 : end].strip()
    question = text[:start] + ("" if text.endswith("}") else "_____") + text[end + 1 :]
    answers, _, general = answers.rpartition("####") if "####" in answers else (answers, "", "")
    fmt, question = with_format(question.strip())
    kind = kind_of(answers.strip())
    if kind == "multichoice" and "=" not in answers:
        bank.skip(index, kind, "several answers may be chosen")
    elif kind == "multichoice":
        choices, right_feedback = read_choices(answers, fmt)
        feedback = explained(right_feedback, as_text(general, fmt))
        add_choice(bank, index, kind, as_text(question, fmt), choices, feedback)
    elif kind == "truefalse":
        answer, wrong_feedback, right_feedback = (answers.split("#", 2) + ["", ""])[:3]
        is_true = answer.strip() in ("T", "TRUE")
        feedback = explained(as_text(right_feedback, fmt), as_text(general, fmt))
        choices = [("True", is_true), ("False", not is_true)]
        add_choice(bank, index, kind, as_text(question, fmt), choices, feedback)
    else:
        bank.skip(index, kind, NOT_ASKED[kind])


def blocks(text: str) -> list[str]:
    """The questions of a GIFT file: blocks of lines between blank lines, comments left out."""
    found, lines = [], []
    for line in text.splitlines() + [""]:
        if line.strip().startswith("//"):
            continue
        if line.strip():
            lines.append(line)
        elif lines:
            found.append("\n".join(lines).strip())
            lines = []
    return found


def read(data: bytes) -> Bank:
    bank, categories = Bank(), []
    for block in blocks(decoded(data, WHAT)):
        read_question(block, bank, categories)
    bank.title = category_title(categories)
    return bank
