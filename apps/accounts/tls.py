"""The LAN certificate `manage.py tls_certificate` writes, and its fingerprint: students compare
it with what their browser shows before they accept the self-signed certificate."""

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from django.conf import settings


def tls_dir() -> Path:
    return settings.DATA_DIR / "tls"


def certificate_path() -> Path:
    return tls_dir() / "cert.pem"


def key_path() -> Path:
    return tls_dir() / "key.pem"


def fingerprint() -> str | None:
    """SHA-256 of the certificate as browsers show it (AB:12:…), or None without one."""
    try:
        certificate = x509.load_pem_x509_certificate(certificate_path().read_bytes())
    except (OSError, ValueError):
        return None
    return certificate.fingerprint(hashes.SHA256()).hex(":").upper()
