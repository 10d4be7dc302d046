# The column per kind goes: a class set is one per (kind, item_id).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("study", "0008_class_set_item_id_filled"),
    ]

    operations = [
        migrations.RemoveField(model_name="classset", name="quiz"),
        migrations.RemoveField(model_name="classset", name="deck"),
        migrations.RemoveField(model_name="classset", name="mindmap"),
        migrations.RemoveField(model_name="classset", name="workshop"),
        migrations.AlterField(
            model_name="classset",
            name="item_id",
            field=models.BigIntegerField(),
        ),
        migrations.AlterField(
            model_name="classset",
            name="kind",
            field=models.CharField(max_length=30),
        ),
        migrations.AddConstraint(
            model_name="classset",
            constraint=models.UniqueConstraint(
                fields=("kind", "item_id"), name="one_class_set_per_item"
            ),
        ),
    ]
