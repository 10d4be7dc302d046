"""Server-side PDF exports of study material with fpdf2, in a Unicode font when there is one."""

from pathlib import Path

# Debian's fonts-dejavu-core; without it the PDF falls back to a Latin-1 core font.
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
SIZES = {1: 18, 2: 15, 3: 12}


class Document:
    """A page of headings and lines, set left: fpdf2's multi_cell justifies by default, which
    spreads a wrapped title's few long words across the page."""

    def __init__(self, title: str) -> None:
        # fpdf2 (with fontTools) loads here, on the first export, not at start-up
        # (docs/deployment.md#start-up-time).
        from fpdf import FPDF

        self.pdf = FPDF(format="A4")
        self.pdf.set_title(title)
        self.pdf.set_creator("CogniVault")
        self.pdf.set_auto_page_break(auto=True, margin=15)
        self.unicode = (DEJAVU / "DejaVuSans.ttf").is_file()
        if self.unicode:
            self.family = "DejaVu"
            self.pdf.add_font("DejaVu", "", DEJAVU / "DejaVuSans.ttf")
            self.pdf.add_font("DejaVu", "B", DEJAVU / "DejaVuSans-Bold.ttf")
            self.pdf.add_font("DejaVu", "I", DEJAVU / "DejaVuSans-Oblique.ttf")
            self.pdf.add_font("DejaVu", "BI", DEJAVU / "DejaVuSans-BoldOblique.ttf")
        else:
            self.family = "Helvetica"
        self.pdf.add_page()
        self.heading(title, level=1)

    def _text(self, text: str) -> str:
        if self.unicode:
            return text
        return text.encode("latin-1", "replace").decode("latin-1")

    def heading(self, text: str, *, level: int = 2) -> None:
        self.pdf.set_font(self.family, "B", SIZES.get(level, 12))
        self.pdf.ln(2)
        self.pdf.multi_cell(
            0, SIZES.get(level, 12) * 0.5, self._text(text), new_x="LMARGIN", align="L"
        )
        self.pdf.ln(1)

    def line(self, text: str, *, bold: bool = False, muted: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", 11)
        self.pdf.set_text_color(100 if muted else 0)
        self.pdf.multi_cell(0, 6, self._text(text), new_x="LMARGIN", align="L")
        self.pdf.set_text_color(0)

    def html(self, html: str) -> None:
        """Sanitised HTML rendered from Markdown (headings, paragraphs, lists, emphasis)."""
        self.pdf.set_font(self.family, "", 11)
        self.pdf.write_html(self._text(html), font_family=self.family)

    def page_break(self) -> None:
        self.pdf.add_page()

    def output(self) -> bytes:
        return bytes(self.pdf.output())
