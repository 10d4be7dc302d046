"""Every class set names its class, and an item may be handed to several classes, once each."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("study", "0011_class_sets_into_the_one_class")]

    operations = [
        migrations.AlterField(
            model_name="classset",
            name="school_class",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="class_sets",
                to="classes.schoolclass",
            ),
        ),
        migrations.RemoveConstraint(model_name="classset", name="one_class_set_per_item"),
        migrations.AddConstraint(
            model_name="classset",
            constraint=models.UniqueConstraint(
                fields=("kind", "item_id", "school_class"), name="one_class_set_per_item_and_class"
            ),
        ),
    ]
