from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="worker",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name="message",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="message",
            name="stop_requested",
            field=models.BooleanField(default=False),
        ),
    ]
