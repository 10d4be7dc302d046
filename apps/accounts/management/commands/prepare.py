"""What `make run` does before the processes start, in one Django start-up rather than three:
the database migrated, the LAN certificate, the first teacher and the addresses to share."""

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Migrate, write the LAN certificate when needed, create the first teacher, print the URLs."
    )

    def handle(self, *args, **options) -> None:
        call_command("migrate", interactive=False, verbosity=options["verbosity"])
        call_command("tls_certificate")
        call_command("bootstrap")
