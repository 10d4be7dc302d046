# One image for the web (daphne) and worker (celery) services of compose.yaml.
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng \
       build-essential cmake \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN python -m venv /app/.venv && make -o system-packages setup

ENV DATA_DIR=/data PATH=/app/.venv/bin:$PATH
VOLUME /data
EXPOSE 8000
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py bootstrap && daphne -b 0.0.0.0 -p 8000 cognivault_site.asgi:application"]
