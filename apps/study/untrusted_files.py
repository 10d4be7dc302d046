"""What every reader of a file from another tool shares (question banks, Anki packages): XML
parsed without a DTD or entities, zips opened within limits, text that must be UTF-8, HTML
turned into plain text, and pictures checked by their first bytes and kept as data URIs.

No Django here: the readers run in the reading sandbox's child process (apps/vault/readers).
"""

import base64
import re
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from apps.vault.readers import zipguard
from apps.vault.readers.common import ExtractionError

MAX_XML_BYTES = 20 * 1024 * 1024  # one XML file, or one XML part of a zip
MAX_ZIP_ENTRIES = 5_000
MAX_UNZIPPED_BYTES = 200 * 1024 * 1024
MAX_PICTURE_BYTES = 1024 * 1024
MAX_PICTURES_BYTES = 20 * 1024 * 1024  # all pictures of one file together

# The first bytes of the picture formats every browser shows; anything else (SVG, which can
# carry scripts, above all) is left out.
PICTURE_TYPES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}


class UnreadableFile(ExtractionError):
    """A file we cannot take; the message says why, for the person who sent it (the sandbox
    hands it back as it is)."""


def decoded(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableFile(
            f"The {what} is not UTF-8 text (byte {error.start} is not valid UTF-8): save it "
            "as UTF-8 and try again."
        ) from None


def parse_xml(data: bytes, what: str) -> Element:
    """The root of an XML document that declares no DTD and no entity (billion laughs and
    external entities are refused before anything is expanded or fetched)."""
    if len(data) > MAX_XML_BYTES:
        raise UnreadableFile(f"The {what} is larger than {MAX_XML_BYTES // 2**20} MB: refused.")
    try:
        return fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise UnreadableFile(
            f"The {what} declares a DTD or XML entities, which are refused here."
        ) from None
    except ParseError as error:
        if "not well-formed (invalid token)" in str(error) and not _utf8(data):
            decoded(data, what)  # says which byte is not UTF-8
        raise UnreadableFile(f"The {what} is not well-formed XML ({error}).") from None


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rsplit("}", 1)[-1]


def open_zip(path, what: str) -> zipfile.ZipFile:
    """A zip within the limits of a file from another tool (smaller than an Office file's)."""
    try:
        return zipguard.open_zip(
            path, what, max_entries=MAX_ZIP_ENTRIES, max_unzipped_bytes=MAX_UNZIPPED_BYTES
        )
    except ExtractionError as error:
        raise UnreadableFile(str(error)) from None


def read_entry(archive: zipfile.ZipFile, name: str, limit: int, what: str) -> bytes:
    """One part of a zip, read no further than `limit` bytes whatever its index says."""
    try:
        with archive.open(name) as stream:
            data = stream.read(limit + 1)
    except KeyError:
        raise UnreadableFile(f"The {what} has no {name}.") from None
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise UnreadableFile(f"The {what} has a damaged part ({name}).") from None
    if len(data) > limit:
        raise UnreadableFile(f"{name} in the {what} is larger than {limit // 2**20} MB: refused.")
    return data


def picture_uri(data: bytes) -> str | None:
    """A picture as a data URI, or None for anything that is not a PNG, JPEG or GIF within
    MAX_PICTURE_BYTES."""
    if len(data) > MAX_PICTURE_BYTES:
        return None
    for magic, media_type in PICTURE_TYPES.items():
        if data.startswith(magic):
            return f"data:{media_type};base64,{base64.b64encode(data).decode()}"
    return None


def picture_bytes(uri: str) -> tuple[bytes, str]:
    """A data URI made by `picture_uri` back as (bytes, file extension)."""
    head, _, encoded = uri.partition(",")
    extension = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"}[head[5:-7]]
    return base64.b64decode(encoded), extension


@dataclass
class Pictures:
    """The pictures of one file, found by name, within MAX_PICTURES_BYTES in all."""

    by_name: dict[str, bytes] = field(default_factory=dict)
    used: int = 0

    def uris(self, names: list[str]) -> list[str]:
        uris = []
        for name in names:
            data = self.by_name.get(name)
            uri = picture_uri(data) if data is not None else None
            if uri is not None and self.used + len(data) <= MAX_PICTURES_BYTES:
                self.used += len(data)
                uris.append(uri)
        return uris


BLOCKS = {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr"}
HIDDEN = {"script", "style", "head", "title"}


class _Text(HTMLParser):
    def __init__(self, skip_class: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.pictures: list[str] = []
        self.hidden: list[str] = []  # the open elements whose content is left out
        self.skip_class = skip_class

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if self.hidden:
            if tag not in ("br", "img", "hr"):
                self.hidden.append(tag)
            return
        classes = (attributes.get("class") or "").split()
        if tag in HIDDEN or (self.skip_class and self.skip_class in classes):
            self.hidden.append(tag)
        elif tag == "img" and attributes.get("src"):
            self.pictures.append(attributes["src"])
        elif tag == "br":
            self.parts.append("\n")
        elif tag in BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            if tag == self.hidden[-1]:
                self.hidden.pop()
            return
        if tag in BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:  # a new line in HTML is a space
            self.parts.append(re.sub(r"\s*\n\s*", " ", data))


def html_text(html: str, skip_class: str = "") -> tuple[str, list[str]]:
    """HTML as plain text (a line break as a new line, paragraphs apart by a blank line,
    markup and scripts gone) and the `src` of each picture in it, in order. Elements of
    `skip_class` are left out."""
    if "<" not in html and "&" not in html:  # no markup: the parser has nothing to do
        return plain(re.sub(r"\s*\n\s*", " ", html)), []
    parser = _Text(skip_class)
    parser.feed(html)
    parser.close()
    return plain("".join(parser.parts)), parser.pictures


def plain(text: str) -> str:
    """Spaces collapsed within lines, no more than one blank line in a row, the ends trimmed."""
    lines = (re.sub(r"[ \t\r\f\v\u00a0]+", " ", line).strip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
