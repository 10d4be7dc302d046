"""Moodle XML, the question format every Moodle site reads and writes: a bank out (the quiz as
a category, multiple choice with one right answer and true/false, the explanation as the right
answer's feedback, the source passage as general feedback, pictures as embedded files) and a
file in (see docs/study-hub.md#exchange for what is kept).

Django-free: `read` runs in the reading sandbox.
"""

import base64
import binascii
import html
from urllib.parse import quote, unquote
from xml.etree.ElementTree import Element, SubElement, indent, tostring

from apps.study.quizzes.bank import (
    SOURCE_CLASS,
    TRUE_FALSE,
    Bank,
    Item,
    add_choice,
    category_title,
    explained,
    true_or_false,
)
from apps.study.untrusted_files import (
    Pictures,
    UnreadableFile,
    html_text,
    local,
    parse_xml,
    picture_bytes,
    plain,
)

WHAT = "Moodle XML file"
PLUGINFILE = "@@PLUGINFILE@@/"
# Why each of Moodle's other question types is left out.
NOT_ASKED = {
    "shortanswer": "typed answers are not asked here: every answer is chosen among options",
    "numerical": "typed numbers are not asked here: every answer is chosen among options",
    "essay": "an essay is marked by a person",
    "match": "matching pairs are not asked here",
    "matching": "matching pairs are not asked here",
    "multianswer": "embedded answers (cloze) are not asked here",
    "description": "a description asks nothing",
    "ddwtos": "drag and drop is not asked here",
    "ddimageortext": "drag and drop is not asked here",
    "ddmarker": "drag and drop is not asked here",
    "gapselect": "choosing words for gaps is not asked here",
    "randomsamatch": "random matching is not asked here",
}


def paragraphs(text: str) -> str:
    """Plain text as HTML: a paragraph per block, its single line breaks kept."""
    blocks = (block.strip() for block in text.split("\n\n"))
    return "".join(f"<p>{html.escape(b).replace(chr(10), '<br>')}</p>" for b in blocks if b)


def text_element(parent: Element, tag: str, content: str, fmt: str = "html") -> Element:
    element = SubElement(parent, tag, format=fmt)
    SubElement(element, "text").text = content
    return element


def question_text(parent: Element, item: Item, number: int) -> None:
    """The question's text, and its pictures as files the text points to."""
    names = [
        f"picture-{number}-{i}.{picture_bytes(uri)[1]}" for i, uri in enumerate(item.pictures, 1)
    ]
    shown = "".join(f'<p><img src="{PLUGINFILE}{quote(name)}" alt=""></p>' for name in names)
    element = text_element(parent, "questiontext", paragraphs(item.text) + shown)
    for name, uri in zip(names, item.pictures, strict=True):
        data, _extension = picture_bytes(uri)
        SubElement(element, "file", name=name, path="/", encoding="base64").text = base64.b64encode(
            data
        ).decode()


def source_html(item: Item) -> str:
    if not item.source:
        return ""
    quote_html = f'<blockquote class="{SOURCE_CLASS}">{paragraphs(item.passage)}</blockquote>'
    return f'<p class="{SOURCE_CLASS}">From {html.escape(item.source)}:</p>' + quote_html


def write_question(quiz: Element, item: Item, number: int) -> None:
    is_true_false = true_or_false(item)
    question = SubElement(quiz, "question", type="truefalse" if is_true_false else "multichoice")
    SubElement(SubElement(question, "name"), "text").text = item.text.split("\n")[0][:100]
    question_text(question, item, number)
    text_element(question, "generalfeedback", source_html(item))
    SubElement(question, "defaultgrade").text = "1.0000000"
    SubElement(question, "penalty").text = "1.0000000" if is_true_false else "0.3333333"
    SubElement(question, "hidden").text = "0"
    SubElement(question, "idnumber")
    if not is_true_false:
        for tag, value in (
            ("single", "true"),
            ("shuffleanswers", "false" if item.kind == TRUE_FALSE else "true"),
            ("answernumbering", "abc"),
            ("showstandardinstruction", "0"),
        ):
            SubElement(question, tag).text = value
        for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
            text_element(question, tag, "")
    options = ["true", "false"] if is_true_false else item.options
    for i, option in enumerate(options):
        right = i == item.correct_index
        answer = SubElement(
            question,
            "answer",
            fraction="100" if right else "0",
            format="moodle_auto_format" if is_true_false else "html",
        )
        SubElement(answer, "text").text = option if is_true_false else html.escape(option)
        text_element(answer, "feedback", paragraphs(item.explanation) if right else "")


def write(bank: Bank) -> bytes:
    quiz = Element("quiz")
    category = SubElement(quiz, "question", type="category")
    SubElement(SubElement(category, "category"), "text").text = f"$course$/top/{bank.title}"
    text_element(category, "info", "")
    SubElement(category, "idnumber")
    for number, item in enumerate(bank.items, 1):
        write_question(quiz, item, number)
    indent(quiz)
    return tostring(quiz, encoding="UTF-8", xml_declaration=True) + b"\n"


def files_of(element: Element) -> dict[str, bytes]:
    files = {}
    for file in element.findall("file"):
        if file.get("encoding") == "base64" and file.get("name"):
            try:
                files[file.get("name")] = base64.b64decode(file.text or "", validate=False)
            except (binascii.Error, ValueError):
                continue
    return files


def rich_text(element: Element | None, pictures: Pictures) -> tuple[str, list[str]]:
    """A text element's plain text and the pictures its HTML shows from its own files (a
    picture elsewhere on the web is not fetched). Quoted sources are left out."""
    if element is None:
        return "", []
    raw = element.findtext("text") or ""
    if element.get("format") in ("plain_text", "markdown"):
        return plain(raw), []
    text, sources = html_text(raw, skip_class=SOURCE_CLASS)
    pictures.by_name.update(files_of(element))
    names = [unquote(src[len(PLUGINFILE) :]) for src in sources if src.startswith(PLUGINFILE)]
    return text, pictures.uris(names)


def read_choice(question: Element, index: int, bank: Bank, pictures: Pictures) -> None:
    kind = question.get("type", "")
    if kind == "multichoice" and (question.findtext("single") or "true").strip() in ("0", "false"):
        bank.skip(index, kind, "several answers may be chosen")
        return
    text, shown = rich_text(question.find("questiontext"), pictures)
    general, _ = rich_text(question.find("generalfeedback"), Pictures())
    answers, right_feedback = [], ""
    for answer in question.findall("answer"):
        option, _ = rich_text(answer, Pictures())
        try:
            right = float(answer.get("fraction", "0")) >= 99.99
        except ValueError:
            right = False
        if kind == "truefalse":
            option = option.capitalize()
        if right:
            right_feedback = rich_text(answer.find("feedback"), Pictures())[0]
        answers.append((option, right))
    ordered = (question.findtext("shuffleanswers") or "").strip() in ("0", "false")
    feedback = explained(right_feedback, general)
    add_choice(bank, index, kind, text, answers, feedback, shown, ordered=ordered)


def read(data: bytes) -> Bank:
    root = parse_xml(data, WHAT)
    if local(root.tag) != "quiz":
        raise UnreadableFile(f"This XML file is not a Moodle question bank (<{local(root.tag)}>).")
    bank, categories, pictures = Bank(), [], Pictures()
    for question in root.findall("question"):
        kind = question.get("type", "")
        if kind == "category":
            categories.append((question.findtext("category/text") or "").strip())
            continue
        index = bank.next_index()
        if kind in ("multichoice", "truefalse"):
            read_choice(question, index, bank, pictures)
        else:
            reason = NOT_ASKED.get(kind, f"{kind or 'untyped'} questions are not asked here")
            bank.skip(index, kind, reason)
    bank.title = category_title(categories)
    return bank
