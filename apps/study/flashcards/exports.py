"""A deck as a file for another tool: a CSV of fronts and backs, or an Anki package
(docs/study-hub.md#exchange). Pages and the API read `FORMATS`."""

from apps.study.flashcards import anki, csv_files

FORMATS = {"csv": ("text/csv", csv_files.export_csv), "apkg": ("application/zip", anki.export_apkg)}
