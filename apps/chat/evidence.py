"""The sentences of the retrieved passages that best answer a question, cut verbatim from them,
for the answers a model too small to write faithfully does not write (docs/chat.md).

A sentence is scored by its cosine to the question in the embedding model the search already
loaded (without one, by BM25 over the candidate sentences with the vault's own tokenizer); the
best few are returned in reading order: by document, then by where they stand in it.
"""

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from apps.llm import gateway
from apps.vault.sentences import STOPWORDS, is_table_row, sentences
from apps.vault.tokenize import can_expand, fold, query_terms, tokenize

MAX_SENTENCES = 4
MIN_SENTENCES = 2
# After the first MIN_SENTENCES, a sentence is kept only while it scores this share of the best.
KEEP_SHARE = 0.75
# Sentences come from the best few passages only: the fifth to seventh rarely hold the answer
# and double the sentences to embed (docs/chat.md has the measurement).
PASSAGES = 4
RANK_WEIGHT = 0.1  # a sentence of the n-th passage gets RANK_WEIGHT / n on top of its score
MIN_WORDS = 4  # shorter "sentences" are headings, option names or list stubs
MAX_CHARS = 600  # a longer one is a table or a run-on block, not a sentence to quote
K1, B = 1.2, 0.75
COMPOUND_WEIGHT = 0.5

_STOPWORDS = frozenset(fold(word) for word in STOPWORDS) | {"ob", "wozu", "welchen"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Quote:
    citation: dict  # as the toolbox recorded it: number, chunk_id, filename, page, text…
    start: int  # where the sentence starts and ends in the chunk
    end: int
    text: str  # the sentence as it stands in the chunk, each run of white space one space
    score: float = 0.0


def best_sentences(question: str, citations: list[dict]) -> list[Quote]:
    """2–4 sentences of the best cited chunks that best answer the question, in reading order.

    A sentence scores its cosine to the question; without an embedding model, its BM25 score
    among the candidates divided by the best one. Both get a little for the passage's rank.
    """
    found = candidates([c for c in citations if c["number"] <= PASSAGES])
    if not found:
        return []
    texts = [quote.text for quote in found]
    scores = meaning_scores(question, texts)
    if scores is None:
        keyword = keyword_scores(question, texts)
        top = max(keyword) or 1.0
        scores = [score / top for score in keyword]
    scored = [
        Quote(q.citation, q.start, q.end, q.text, score + RANK_WEIGHT / q.citation["number"])
        for q, score in zip(found, scores, strict=True)
    ]
    ranked = sorted(scored, key=lambda quote: -quote.score)
    kept = ranked[:MIN_SENTENCES]
    for quote in ranked[MIN_SENTENCES:MAX_SENTENCES]:
        if quote.score < KEEP_SHARE * ranked[0].score:
            break
        kept.append(quote)
    return reading_order(kept)


def candidates(citations: list[dict]) -> list[Quote]:
    """Every quotable sentence of the cited chunks, each text once."""
    seen: set[str] = set()
    found = []
    for citation in citations:
        text = citation["text"]
        for span in sentences(text):
            sentence = _SPACE.sub(" ", text[span.start : span.end]).strip()
            key = sentence.casefold()
            if (
                key in seen
                or len(sentence.split()) < MIN_WORDS
                or len(sentence) > MAX_CHARS
                or is_table_row(sentence)
            ):
                continue
            seen.add(key)
            found.append(Quote(citation, span.start, span.end, sentence))
    return found


def reading_order(quotes: list[Quote]) -> list[Quote]:
    """By document (the one with the best sentence first), then by position in it."""
    best: dict[int, float] = {}
    for quote in quotes:
        document = quote.citation["document_id"]
        best[document] = max(best.get(document, quote.score), quote.score)
    return sorted(
        quotes,
        key=lambda q: (-best[q.citation["document_id"]], q.citation["chunk_id"], q.start),
    )


def content_terms(question: str) -> list[str]:
    return [term for term in query_terms(question) if term not in _STOPWORDS]


def keyword_scores(question: str, texts: list[str]) -> list[float]:
    """BM25 of each text for the question's content words, the texts being the collection."""
    terms = content_terms(question)
    if not terms or not texts:
        return [0.0] * len(texts)
    counts = [Counter(tokenize(text)) for text in texts]
    lengths = [max(1, sum(c.values())) for c in counts]
    average = sum(lengths) / len(lengths)
    wider = {term for term in terms if can_expand(term)}
    scores = []
    for count, length in zip(counts, lengths, strict=True):
        norm = K1 * (1 - B + B * length / average)
        score = 0.0
        for term in terms:
            tf = count.get(term, 0)
            if not tf and term in wider:
                tf = COMPOUND_WEIGHT * sum(
                    n for word, n in count.items() if word != term and term in word
                )
            if tf:
                score += _idf(term, counts, term in wider) * tf * (K1 + 1) / (tf + norm)
        scores.append(score)
    return scores


def _idf(term: str, counts: list[Counter], wide: bool) -> float:
    df = sum(1 for c in counts if term in c or (wide and any(term in word for word in c)))
    return math.log(1 + (len(counts) - df + 0.5) / (df + 0.5))


def meaning_scores(question: str, texts: list[str]) -> list[float] | None:
    """Cosine of each text to the question; None when no embedding model answers."""
    try:
        vectors = gateway.embed([question, *texts])
    except (gateway.ModelUnavailable, gateway.ModelError):
        return None
    return [float(score) for score in np.asarray(vectors[1:]) @ np.asarray(vectors[0])]
