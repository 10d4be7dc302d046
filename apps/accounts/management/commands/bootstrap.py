"""First-run setup for `make run`: the first teacher account and the addresses to share."""

import os

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.accounts import tls
from apps.accounts.models import User, generate_password
from cognivault_site.network import lan_addresses


class Command(BaseCommand):
    help = "Create the first teacher when there is none and print the URLs to open."

    def handle(self, *args, **options) -> None:
        if not User.objects.filter(is_staff=True).exists():
            username = os.environ.get("TEACHER_USERNAME", "teacher")
            password = generate_password()
            User.objects.create_superuser(username, password=password)
            self.stdout.write(
                self.style.WARNING(
                    "\nCreated the first teacher account (shown only this once):\n"
                    f"    username: {username}\n    password: {password}\n"
                    "Change it under Settings after logging in.\n"
                )
            )
        port, https_port = settings.PORT, settings.HTTPS_PORT
        self.stdout.write(f"\nCogniVault on this machine:  http://localhost:{port}/")
        for address in lan_addresses():
            https = f"https://{address}:{https_port}/"
            plain = f"http://{address}:{port}/"
            if settings.HTTPS_REDIRECT:
                where = f"{https}  ({plain} redirects there)"
            else:
                where = f"{plain}  or  {https} (microphone)"
            self.stdout.write(f"For the classroom (LAN):     {where}")
        if lan_addresses() and tls.fingerprint():
            self.stdout.write(
                "The browser warns once about the self-signed certificate; its SHA-256 "
                f"fingerprint is\n    {tls.fingerprint()}"
            )
        self.stdout.write("")
