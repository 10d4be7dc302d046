# A class set names its item by kind and id (apps/study/kinds.py) instead of one column per
# kind: the new column first; 0008 copies each set's item into it and 0009 drops the old ones.
# Three migrations, so that on PostgreSQL no table is altered in the transaction that updates
# its rows (each migration is a transaction of its own), either way.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("study", "0006_class_set_quiz_policy"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="classset", name="class_set_names_its_one_item"),
        migrations.RemoveConstraint(model_name="classset", name="one_class_set_per_quiz"),
        migrations.RemoveConstraint(model_name="classset", name="one_class_set_per_deck"),
        migrations.RemoveConstraint(model_name="classset", name="one_class_set_per_mindmap"),
        migrations.RemoveConstraint(model_name="classset", name="one_class_set_per_workshop"),
        migrations.AddField(
            model_name="classset",
            name="item_id",
            field=models.BigIntegerField(null=True),
        ),
    ]
