"""A class quiz's marks get a moment of their own. Sets of one attempt, or whose answers show
after each attempt, keep showing the score after each attempt; the others show it after the due
date, as a score per attempt gives the key away one changed answer at a time. Attempts handed in
before were recorded for progress when they were."""

from django.db import migrations, models


def marks_after_the_due_date_for_several_attempts(apps, schema_editor) -> None:
    ClassSet = apps.get_model("study", "ClassSet")
    several = ClassSet.objects.exclude(attempts=1).exclude(reveal="after_attempt")
    several.update(marks="after_due")


class Migration(migrations.Migration):
    dependencies = [("study", "0013_pictures_of_imported_files")]

    operations = [
        migrations.AddField(
            model_name="classset",
            name="marks",
            field=models.CharField(
                choices=[
                    ("after_attempt", "After each attempt"),
                    ("after_due", "After the due date, or when I release the answers"),
                    ("never", "Never (unless I release the answers)"),
                ],
                default="after_attempt",
                max_length=14,
            ),
        ),
        migrations.AddField(
            model_name="attempt",
            name="recorded",
            field=models.BooleanField(default=True),
        ),
        migrations.AlterField(
            model_name="attempt",
            name="recorded",
            field=models.BooleanField(
                default=False,
                help_text="In its person's progress: when handed in, or once its marks showed.",
            ),
        ),
        # Last: PostgreSQL alters no table whose rows its own transaction has just updated.
        migrations.RunPython(
            marks_after_the_due_date_for_several_attempts, migrations.RunPython.noop
        ),
    ]
