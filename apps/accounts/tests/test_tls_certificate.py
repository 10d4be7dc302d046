from cryptography import x509
from django.core.management import call_command


def test_it_writes_a_certificate_for_this_machine_once(settings):
    call_command("tls_certificate")
    cert_path = settings.DATA_DIR / "tls" / "cert.pem"
    first = cert_path.read_bytes()
    certificate = x509.load_pem_x509_certificate(first)
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "127.0.0.1" in {str(ip) for ip in names.get_values_for_type(x509.IPAddress)}
    assert (settings.DATA_DIR / "tls" / "key.pem").stat().st_mode & 0o077 == 0

    call_command("tls_certificate")
    assert cert_path.read_bytes() == first
