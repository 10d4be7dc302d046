"""A question bank as the exchange formats carry it (Moodle XML, GIFT, QTI): the questions we
can ask, each with its options, answer, explanation, pictures and source passage, and the
ones a file held that we cannot, with their type and why.

Plain values and no Django: a file is read into a Bank in the reading sandbox's child process
and comes back as the dict `as_dict` makes; a quiz is written out from the Bank `exports.bank_of`
makes of it.
"""

import re
from dataclasses import asdict, dataclass, field

MCQ, TRUE_FALSE = "mcq", "true_false"
TRUE_FALSE_OPTIONS = ["True", "False"]
# What a question here can hold; a file's question beyond it is listed as skipped.
MAX_OPTIONS = 10
MAX_TEXT, MAX_OPTION, MAX_EXPLANATION = 2000, 500, 4000
# Elements of this class in a file's feedback quote the document a question was made from, on
# the server that exported it; they are not the question's explanation (docs/study-hub.md).
SOURCE_CLASS = "source"


# Characters XML 1.0 cannot hold (C0 controls but tab and line breaks, lone surrogates, U+FFFE,
# U+FFFF); a vertical tab or form feed (Word's line and page breaks) is a line break.
NOT_IN_XML = re.compile("[\x00-\x08\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
BREAKS = re.compile("[\x0b\x0c]")


def exchangeable(text: str) -> str:
    """The text as every exchange format can carry it: one that holds a control character (a
    passage from a Word file, a question edited through the API) is written out, not refused."""
    return NOT_IN_XML.sub("", BREAKS.sub("\n", text))


@dataclass
class Item:
    kind: str  # MCQ or TRUE_FALSE
    text: str
    options: list[str]
    correct_index: int
    explanation: str = ""
    pictures: list[str] = field(default_factory=list)  # data URIs, shown with the question
    # The passage it was made from and where that is ("file.pdf, p. 3"), written out with it.
    source: str = ""
    passage: str = ""


@dataclass
class Skipped:
    index: int  # the question's number in the file, from 1
    type: str  # the file's own name for its kind: "essay", "matchInteraction"
    reason: str


@dataclass
class Bank:
    title: str = ""
    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    count: int = 0  # questions met so far, to number the next one

    def next_index(self) -> int:
        self.count += 1
        return self.count

    def skip(self, index: int, kind: str, reason: str) -> None:
        self.skipped.append(Skipped(index, kind, reason))

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Bank":
        return cls(
            title=data["title"],
            items=[Item(**item) for item in data["items"]],
            skipped=[Skipped(**skipped) for skipped in data["skipped"]],
            count=data["count"],
        )


def choice_item(
    texts: list[str],
    right: int,
    text: str,
    explanation: str,
    pictures: list[str],
    ordered: bool = False,
) -> Item:
    """A question of one right answer among `texts`: true or false when its two options say
    so (in either order), or are two that keep their order ("Yes", "No"); else multiple
    choice."""
    folded = [option.casefold() for option in texts]
    if sorted(folded) == ["false", "true"]:
        is_true = folded[right] == "true"
        options = list(TRUE_FALSE_OPTIONS)
        return Item(TRUE_FALSE, text, options, 0 if is_true else 1, explanation, pictures)
    kind = TRUE_FALSE if ordered and len(texts) == 2 else MCQ
    return Item(kind, text, texts, right, explanation, pictures)


def true_or_false(item: Item) -> bool:
    """A true/false question whose options say True and False: the formats' own true/false
    type; any other ("Yes", "No") goes out as two choices in a fixed order."""
    return item.kind == TRUE_FALSE and [o.casefold() for o in item.options] == ["true", "false"]


def add_choice(
    bank: Bank,
    index: int,
    kind: str,
    text: str,
    answers: list[tuple[str, bool]],
    explanation: str = "",
    pictures: list[str] | None = None,
    ordered: bool = False,
) -> None:
    """Keep a question with one right answer among `answers` ((text, right?) each), or list
    it as skipped with the reason it cannot be asked here. `ordered`: its answers keep their
    order (not shuffled). Control characters are dropped first (`exchangeable`)."""
    text, explanation = exchangeable(text).strip(), exchangeable(explanation).strip()
    answers = [(exchangeable(option).strip(), right) for option, right in answers]
    rights = [i for i, (_option, right) in enumerate(answers) if right]
    reason = ""
    if not text:
        reason = "it has no question text"
    elif len(answers) < 2:
        reason = "it has fewer than two answers"
    elif len(answers) > MAX_OPTIONS:
        reason = f"it has more than {MAX_OPTIONS} answers"
    elif not all(option for option, _right in answers):
        reason = "an answer has no text (a picture alone is not kept)"
    elif len(rights) != 1:
        reason = "several answers are right" if rights else "no answer is fully right"
    elif len(text) > MAX_TEXT:
        reason = f"the question is longer than {MAX_TEXT} characters"
    elif any(len(option) > MAX_OPTION for option, _right in answers):
        reason = f"an answer is longer than {MAX_OPTION} characters"
    elif len(explanation) > MAX_EXPLANATION:
        reason = f"its feedback is longer than {MAX_EXPLANATION} characters"
    if reason:
        bank.skip(index, kind, reason)
        return
    options = [option for option, _right in answers]
    bank.items.append(choice_item(options, rights[0], text, explanation, pictures or [], ordered))


def category_title(paths: list[str]) -> str:
    """The quiz title of a file's categories ("$course$/top/Biology/Cells"): the last name of
    the path they all share, else of the first one."""
    split = [
        [part for part in path.split("/") if part and not part.startswith("$") and part != "top"]
        for path in paths
    ]
    split = [parts for parts in split if parts]
    if not split:
        return ""
    shared = []
    for names in zip(*split, strict=False):
        if len(set(names)) > 1:
            break
        shared.append(names[0])
    return (shared or split[0])[-1].strip()


# Feedback that only says the choice was right ("Richtig!", "Well done :)") explains nothing.
PRAISE = frozenset(
    """
    richtig korrekt genau super prima toll perfekt bravo sehr gut gut gemacht ja stimmt
    correct right yes exactly great well done good job excellent perfect nice
    """.split()  # noqa: SIM905
)


def explained(*feedback: str) -> str:
    """What an imported question's feedback explains, as its explanation: `joined`, without a
    text that only praises the right choice."""
    return joined(*(text for text in feedback if not _praise(text)))


def _praise(text: str) -> bool:
    words = re.findall(r"\w+", text.casefold())
    return 0 < len(words) <= 3 and all(word in PRAISE for word in words)


def joined(*texts: str) -> str:
    """Feedback texts as one explanation: each once, in order, blank ones left out."""
    kept: list[str] = []
    for text in texts:
        if text and text not in kept:
            kept.append(text)
    return "\n\n".join(kept)
