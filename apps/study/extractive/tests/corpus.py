"""A small vault of real files in every format, with definitions, headings and tables in
English and German, for the extractive generators to cut their material from."""

from pathlib import Path

import pymupdf

from apps.vault.tests import files

RETRIEVAL_PAGES = {
    "Keyword search": (
        "BM25 is a ranking function that scores passages by term frequency and inverse "
        "document frequency. The tokenizer keeps identifiers like BZ_OUTBUFF_FULL and § 3 "
        "whole, so an exact error code still finds its passage. Stemming is not used; "
        "German compounds match by their first and last parts instead."
    ),
    "Dense search": (
        "FAISS is a library for efficient similarity search over dense vectors. The dense "
        "retriever compares the query vector with every chunk vector by inner product. "
        "Embeddings are vectors that place similar meanings close together."
    ),
    "Fusion": (
        "Reciprocal Rank Fusion combines the dense and the keyword ranking with k = 60. "
        "Each retriever returns at least 20 candidates before fusion. The answer is "
        "written from the top 7 passages, which the chat cites with their page."
    ),
}

GLOSSARY = """Glossary of the study vault

Chunk: a piece of a document of about 1000 characters that search returns.
Scope: the categories and documents a question or a quiz draws from.
Checkpoint: the saved result of one ingestion step, keyed by the file's hash.
Ingestion: the chain of scan, extract, chunk, embed and index steps for new files.
Recall: the share of questions whose passage search finds among the first results.
"""


def outlined_pdf(path: Path) -> Path:
    """Three pages with an outline (bookmarks): the PDF's own table of contents."""
    document = pymupdf.open()
    toc = [[1, "Retrieval", 1]]
    for number, (title, text) in enumerate(RETRIEVAL_PAGES.items(), start=1):
        page = document.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), f"{title}\n\n{text}", fontsize=11)
        toc.append([2, title, number])
    document.set_toc(toc)
    document.save(path)
    return path


def make(folder: Path) -> list[Path]:
    (folder / "glossary.txt").write_text(GLOSSARY, encoding="utf-8")
    return [
        outlined_pdf(folder / "retrieval.pdf"),
        files.scanned_page_pdf(folder / "scan.pdf"),
        files.docx_file(folder / "zellen.docx"),
        files.pptx_file(folder / "krebs.pptx"),
        files.xlsx_file(folder / "budget.xlsx", rows=30),
        files.csv_file(folder / "arten.csv", rows=30),
        files.markdown_file(folder / "genetics.md"),
        files.html_file(folder / "enzymes.html"),
        folder / "glossary.txt",
    ]
