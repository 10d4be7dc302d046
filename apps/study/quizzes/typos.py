"""When a teacher's edit of a question is a typo fix, which keeps its attempts' marks."""

# A typo fix changes each text by at most this many characters (inserted, removed or replaced).
TYPO_EDITS = 2


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of a and b, counted up to `limit + 1` (enough to tell a typo)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        row = [i]
        for j, other in enumerate(b, 1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (char != other)))
        if min(row) > limit:
            return limit + 1
        previous = row
    return previous[-1]


def is_typo_fix(question, text: str, options: list[str], correct_index: int) -> bool:
    """The same answer, and the question and each option changed by at most TYPO_EDITS
    characters: "Mitochondrium" for "Mitochondirum", not "Ribosome" for "Nucleus"."""
    if correct_index != question.correct_index or len(options) != len(question.options):
        return False
    pairs = [(question.text, text), *zip(question.options, options, strict=True)]
    return all(edit_distance(old, new, TYPO_EDITS) <= TYPO_EDITS for old, new in pairs)
