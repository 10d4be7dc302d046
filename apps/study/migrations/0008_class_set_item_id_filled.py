# Each class set's item, from the column of its kind into item_id (and back).

from django.db import migrations
from django.db.models import F

KINDS = ("quiz", "deck", "mindmap", "workshop")


def fill_item_id(apps, schema_editor):
    ClassSet = apps.get_model("study", "ClassSet")
    for kind in KINDS:
        ClassSet.objects.filter(kind=kind).update(item_id=F(f"{kind}_id"))


def fill_kind_columns(apps, schema_editor):
    ClassSet = apps.get_model("study", "ClassSet")
    for kind in KINDS:
        ClassSet.objects.filter(kind=kind).update(**{f"{kind}_id": F("item_id")})


class Migration(migrations.Migration):
    dependencies = [
        ("study", "0007_class_set_item_id"),
    ]

    operations = [
        migrations.RunPython(fill_item_id, fill_kind_columns),
    ]
