"""A self-signed certificate for the LAN, so browsers allow the microphone over https://<lan-ip>."""

import datetime
import ipaddress
import socket

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.core.management.base import BaseCommand

from apps.accounts import tls
from cognivault_site.network import lan_addresses


class Command(BaseCommand):
    help = "Write DATA_DIR/tls/{key,cert}.pem for this machine's addresses (kept if valid)."

    def handle(self, *args, **options) -> None:
        key_path, cert_path = tls.key_path(), tls.certificate_path()
        addresses = ["127.0.0.1", *lan_addresses()]
        if cert_path.exists() and self.covers(cert_path, addresses):
            self.stdout.write(f"Certificate SHA-256 fingerprint: {tls.fingerprint()}")
            return
        tls.tls_dir().mkdir(parents=True, exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "CogniVault on this LAN")])
        now = datetime.datetime.now(datetime.UTC)
        names = [x509.DNSName("localhost"), x509.DNSName(socket.gethostname())]
        names += [x509.IPAddress(ipaddress.ip_address(address)) for address in addresses]
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=825))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .sign(key, hashes.SHA256())
        )
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        key_path.chmod(0o600)
        cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        self.stdout.write(f"Wrote a self-signed certificate for {', '.join(addresses)}.")
        self.stdout.write(f"Certificate SHA-256 fingerprint: {tls.fingerprint()}")

    @staticmethod
    def covers(cert_path, addresses: list[str]) -> bool:
        certificate = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if certificate.not_valid_after_utc < datetime.datetime.now(datetime.UTC):
            return False
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        listed = {str(ip) for ip in names.value.get_values_for_type(x509.IPAddress)}
        return set(addresses) <= listed
