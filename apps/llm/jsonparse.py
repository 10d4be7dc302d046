"""Tolerant JSON out of model text, and the list of items in it.

The parser finds an object or a bare array (fenced or not, after leading prose), tries one
trailing-comma repair pass, and guesses nothing more. It never raises on any text.
"""

import json
import re
from typing import Any

# A model answer is a few KB; a runaway or hostile one must not cost quadratic time.
MAX_TEXT = 200_000
MAX_STARTS = 200

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_decoder = json.JSONDecoder()


def extract_json(text: str) -> dict | list | None:
    """The JSON object or array in `text`, or None.

    Fenced blocks are tried first; otherwise the longest object/array that decodes at any
    `{` or `[` wins, so a stray "[1]" in the prose does not shadow the real answer. The same
    search runs on the text with trailing commas removed, and the larger value wins.
    """
    if not isinstance(text, str):
        return None
    text = text[:MAX_TEXT]
    candidates = (_find(text), _find(_strip_trailing_commas(text)))
    found = [value for value in candidates if value is not None]
    # A trailing comma breaks the outer value and leaves only an inner one readable as it
    # is; the repaired text's value wins when it holds more (on a tie, the text as it is).
    return max(found, key=_size, default=None)


def _size(value: dict | list) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def _find(text: str) -> dict | list | None:
    for block in _FENCE.findall(text):
        value = _decode_longest(block)
        if value is not None:
            return value
    return _decode_longest(text)


def _decode_longest(text: str) -> dict | list | None:
    best: dict | list | None = None
    best_span = 0
    position = 0
    for _ in range(MAX_STARTS):
        start = _next_opening(text, position)
        if start < 0:
            break
        try:
            value, end = _decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        if isinstance(value, dict | list) and end - start > best_span:
            best, best_span = value, end - start
        # Anything nested inside this value is shorter; skip past it.
        position = end
    return best


def _next_opening(text: str, position: int) -> int:
    brace, bracket = text.find("{", position), text.find("[", position)
    if brace < 0:
        return bracket
    if bracket < 0:
        return brace
    return min(brace, bracket)


def _strip_trailing_commas(text: str) -> str:
    """Drop commas directly before `}` or `]`, outside strings: the one repair we do."""
    out: list[str] = []
    in_string = escaped = False
    pending_comma: int | None = None
    for char in text:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "}]" and pending_comma is not None:
            del out[pending_comma]
        if char == ",":
            pending_comma = len(out)
        elif not char.isspace():
            pending_comma = None
        if char == '"':
            in_string = True
        out.append(char)
    return "".join(out)


def find_list(data: Any, key: str) -> list:
    """The list of items in an answer: a bare array, `data[key]`, or the only list value."""
    if isinstance(data, list):
        return data
    if not isinstance(data, dict):
        return []
    if isinstance(data.get(key), list):
        return data[key]
    lists = [value for value in data.values() if isinstance(value, list)]
    return lists[0] if len(lists) == 1 else []
