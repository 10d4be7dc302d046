"""The class sets made before classes existed belong to the one class the upgrade made of the
installation (classes 0002)."""

from django.db import migrations


def into_the_one_class(apps, schema_editor) -> None:
    ClassSet = apps.get_model("study", "ClassSet")
    SchoolClass = apps.get_model("classes", "SchoolClass")
    if not ClassSet.objects.exists():
        return
    the_class = SchoolClass.objects.order_by("pk").first()
    ClassSet.objects.update(school_class=the_class)


class Migration(migrations.Migration):
    dependencies = [("study", "0010_class_set_class")]

    operations = [migrations.RunPython(into_the_one_class, migrations.RunPython.noop)]
