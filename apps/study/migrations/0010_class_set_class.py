"""Class sets are handed to a class (apps/classes): a column for it, filled by the next
migration and required by the one after (PostgreSQL alters no table its own transaction just
updated, so schema and data go apart)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("classes", "0002_one_class_from_before"),
        ("study", "0009_class_set_kind_columns_dropped"),
    ]

    operations = [
        migrations.AddField(
            model_name="classset",
            name="school_class",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="class_sets",
                to="classes.schoolclass",
            ),
        ),
    ]
