"""Log filters (settings.LOGGING)."""

import logging


class RefusalsInOneLine(logging.Filter):
    """A page or route refused to the person who asked for it (403: a student at a teacher's
    page) is logged as its one line, without the traceback Django adds: anyone can cause one
    as often as they like, and it says nothing about the code."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info, record.exc_text = None, None
        return True
