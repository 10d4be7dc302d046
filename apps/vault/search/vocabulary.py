"""A segment's terms as flat sorted arrays that every process maps from the same file instead
of holding its own dictionary: exact look-ups by a stable hash, and the words a query word
starts or ends (German compounds) by binary search."""

import bisect
import hashlib
from collections.abc import Iterable, Sequence

import numpy as np


def term_hash(term: str) -> int:
    """The same 64 bits in every process (Python's `hash` of a str is salted per process)."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")


def vocabulary_arrays(terms: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays of a vocabulary of `terms`, which must be sorted and distinct."""
    encoded = [term.encode() for term in terms]
    offsets = np.zeros(len(terms) + 1, np.int64)
    np.cumsum([len(term) for term in encoded], out=offsets[1:])
    hashes = np.fromiter((term_hash(term) for term in terms), np.uint64, len(terms))
    by_hash = np.argsort(hashes, kind="stable").astype(np.int32)
    words = np.array([i for i, term in enumerate(terms) if term.isalpha()], np.int32)
    reversed_words = words[np.argsort([terms[i][::-1] for i in words], kind="stable")]
    return {
        "text": np.frombuffer(b"".join(encoded), np.uint8),
        "offsets": offsets,
        "hashes": hashes[by_hash],
        "by_hash": by_hash,
        "words": words,
        "reversed_words": reversed_words.astype(np.int32),
    }


class _Sorted(Sequence):
    """Terms in the order of `order` (term indexes), reversed or not, for `bisect`."""

    def __init__(self, vocabulary: "Vocabulary", order: np.ndarray, backwards: bool) -> None:
        self.vocabulary, self.order, self.backwards = vocabulary, order, backwards

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, i):
        term = self.vocabulary.term(int(self.order[i]))
        return term[::-1] if self.backwards else term


class Vocabulary:
    """Term i is column i of the segment's postings; terms are in sorted order."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.text = arrays["text"]
        self.offsets = arrays["offsets"]
        self.hashes = arrays["hashes"]
        self.by_hash = arrays["by_hash"]
        self.words = _Sorted(self, arrays["words"], backwards=False)
        self.reversed_words = _Sorted(self, arrays["reversed_words"], backwards=True)

    def __len__(self) -> int:
        return len(self.hashes)

    def term(self, i: int) -> str:
        return bytes(self.text[self.offsets[i] : self.offsets[i + 1]]).decode()

    def terms(self) -> list[str]:
        return [self.term(i) for i in range(len(self))]

    def find(self, terms: Iterable[str]) -> np.ndarray:
        """The index of each term, -1 for a term the segment does not hold."""
        terms = list(terms)
        wanted = np.fromiter((term_hash(term) for term in terms), np.uint64, len(terms))
        found = np.full(len(terms), -1, np.int64)
        at = np.searchsorted(self.hashes, wanted)
        for i, (term, position) in enumerate(zip(terms, at.tolist(), strict=True)):
            # Equal hashes sit side by side; the text decides (two terms may share 64 bits).
            while position < len(self.hashes) and self.hashes[position] == wanted[i]:
                index = int(self.by_hash[position])
                if self.term(index) == term:
                    found[i] = index
                    break
                position += 1
        return found

    def starting(self, word: str, limit: int) -> list[str]:
        """Up to `limit` longer words starting with `word`, in sorted order."""
        return self._after(self.words, word, limit)

    def ending(self, word: str, limit: int) -> list[str]:
        """Up to `limit` longer words ending with `word`, in the order of their reversals."""
        return [found[::-1] for found in self._after(self.reversed_words, word[::-1], limit)]

    @staticmethod
    def _after(words: _Sorted, key: str, limit: int) -> list[str]:
        start = bisect.bisect_right(words, key)
        end = bisect.bisect_left(words, key + "\uffff", start)
        return [words[i] for i in range(start, min(end, start + limit))]
