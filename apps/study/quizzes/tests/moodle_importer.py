"""What Moodle's own XML importer (question/format/xml/format.php) needs of a file, checked with
lxml, independently of our reader: the path of each value it reads, the values it accepts, and
every embedded file a text points to. Returns the problems found, none for a file Moodle takes.
"""

from urllib.parse import unquote

from lxml import etree

TEXT_PARENTS = ("questiontext", "generalfeedback")


def texts(question, *path: str) -> list[str]:
    return question.xpath("/".join(path) + "/text/text()") or [""]


def plugin_files(element) -> list[str]:
    """The @@PLUGINFILE@@ names an HTML text uses."""
    html = "".join(element.xpath("text/text()"))
    parts = html.split("@@PLUGINFILE@@/")[1:]
    return [unquote(part.split('"')[0]) for part in parts]


def check_files(question, number: int) -> list[str]:
    problems = []
    for element in question.iter(*TEXT_PARENTS, "answer", "feedback"):
        embedded = {file.get("name") for file in element.findall("file")}
        for name in plugin_files(element):
            if name not in embedded:
                problems.append(f"question {number}: {name} is shown but not embedded")
        for file in element.findall("file"):
            if file.get("encoding") != "base64" or not (file.text or "").strip():
                problems.append(f"question {number}: file {file.get('name')} is not base64")
    return problems


def check_choice(question, number: int) -> list[str]:
    kind = question.get("type")
    answers = question.findall("answer")
    fractions = [float(answer.get("fraction")) for answer in answers]
    problems = []
    if kind == "multichoice":
        if (question.findtext("single") or "").strip() not in ("true", "1"):
            problems.append(f"question {number}: <single> is not true")
        if len(answers) < 2 or fractions.count(100.0) != 1:
            problems.append(f"question {number}: not one full-mark answer among two or more")
    if kind == "truefalse":
        values = sorted(answer.findtext("text") for answer in answers)
        if values != ["false", "true"] or sorted(fractions) != [0.0, 100.0]:
            problems.append(f"question {number}: true/false answers are {values} {fractions}")
    for answer in answers:
        if answer.find("feedback/text") is None:
            problems.append(f"question {number}: an answer has no feedback text")
    return problems


def problems(data: bytes) -> list[str]:
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    if root.tag != "quiz":
        return [f"the root is <{root.tag}>, not <quiz>"]
    found = []
    for number, question in enumerate(root.findall("question"), 1):
        kind = question.get("type")
        if kind == "category":
            if not texts(question, "category")[0].startswith("$course$/"):
                found.append(f"question {number}: the category is not in the course")
            continue
        if kind not in ("multichoice", "truefalse"):
            found.append(f"question {number}: type {kind} is not what we export")
            continue
        if not texts(question, "name")[0].strip():
            found.append(f"question {number}: no name")
        if question.find("questiontext").get("format") not in ("html", "moodle_auto_format"):
            found.append(f"question {number}: the question text has no format Moodle knows")
        for tag in ("defaultgrade", "penalty"):
            float(question.findtext(tag))
        found += check_choice(question, number) + check_files(question, number)
    return found
