"""An installation from before classes had one class in all: every student, every teacher and
every class set. They become one class of the first teacher (the oldest admin, else the oldest
teacher), named "My class"; every teacher is one of its teachers, since each reached every
student before (docs/deployment.md#upgrading-to-classes). A new installation has nobody yet and
gets no class."""

import secrets

from django.db import migrations

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def one_class(apps, schema_editor) -> None:
    User = apps.get_model("accounts", "User")
    SchoolClass = apps.get_model("classes", "SchoolClass")
    Enrolment = apps.get_model("classes", "Enrolment")
    teachers = User.objects.filter(is_staff=True).order_by("-is_superuser", "date_joined", "pk")
    first = teachers.first()
    if first is None:
        return
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(7))
    made = SchoolClass.objects.create(name="My class", owner=first, code=code)
    students = User.objects.filter(is_staff=False, is_superuser=False)
    Enrolment.objects.bulk_create(
        [Enrolment(school_class=made, user=user, role="teacher") for user in teachers]
        + [Enrolment(school_class=made, user=user, role="student") for user in students]
    )


class Migration(migrations.Migration):
    dependencies = [("classes", "0001_classes_and_enrolments")]

    operations = [migrations.RunPython(one_class, migrations.RunPython.noop)]
