"""Login cards keep only the SHA-256 of their key (docs/classroom.md#login-cards): the keys of
the cards printed so far are hashed in place, so those cards go on working; card prints and
logins are recorded from now on, and API tokens note whether a card's session made them."""

import hashlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def hash_keys(apps, schema_editor) -> None:
    User = apps.get_model("accounts", "User")
    carded = User.objects.exclude(card_key_hash="")
    for user in carded.only("pk", "card_key_hash"):
        user.card_key_hash = hashlib.sha256(user.card_key_hash.encode()).hexdigest()
        user.save(update_fields=["card_key_hash"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_roster_ids")]

    operations = [
        migrations.RenameField("user", "badge_key", "card_key_hash"),
        migrations.RenameField("user", "badge_issued_at", "card_printed_at"),
        migrations.AlterField(
            model_name="user",
            name="card_key_hash",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.RunPython(hash_keys, migrations.RunPython.noop),
        migrations.AddField(
            model_name="apitoken",
            name="opened_by_card",
            field=models.BooleanField(
                default=False,
                help_text="Made in a session a login card opened: a new card ends it.",
            ),
        ),
        migrations.CreateModel(
            name="CardEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[("printed", "Printed"), ("revoked", "Revoked"), ("login", "Login")],
                        max_length=10,
                    ),
                ),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("address", models.GenericIPAddressField(blank=True, null=True)),
                (
                    "by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="card_events",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [models.Index(fields=["user", "-at"], name="accounts_ca_user_id_3d9c2c_idx")],
            },
        ),
    ]
