"""An image's pixel count from its header, for a chat attachment: nothing is decoded, and the
caller decides how many pixels are too many."""

from pathlib import Path

from apps.vault.readers.common import ExtractionError, Progress


def read_image(path: Path, progress: Progress) -> dict:
    from PIL import Image

    try:
        with Image.open(path) as image:
            width, height = image.size
    except Image.DecompressionBombError:
        # Pillow refuses a header past twice its own limit: the image has at least that many.
        return {"units": [], "pages": None, "pixels": 2 * Image.MAX_IMAGE_PIXELS + 1}
    except OSError as error:
        raise ExtractionError("This is not an image we can read.") from error
    return {"units": [], "pages": None, "pixels": width * height}
