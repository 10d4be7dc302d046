"""A quiz event names the class whose class set it was; the wrong answers kept before could
belong to anyone's own quiz, which no class overview may show, so they are dropped."""

import django.db.models.deletion
from django.db import migrations, models


def drop_unattributed_missed_questions(apps, schema_editor):
    apps.get_model("progress", "MissedQuestion").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("classes", "0002_one_class_from_before"),
        ("progress", "0002_default_badges"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="school_class",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="study_events",
                to="classes.schoolclass",
            ),
        ),
        migrations.RunPython(drop_unattributed_missed_questions, migrations.RunPython.noop),
    ]
