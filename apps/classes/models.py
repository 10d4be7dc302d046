"""A school's classes: each has its teachers (the owner and co-teachers), its students and a
join code a student types to join. Who may reach whom follows from these rows alone: a teacher
reaches the classes they teach and the students enrolled in them, the admin every class
(`SchoolClass.objects.taught_by`, docs/classroom.md#who-reaches-what)."""

import secrets

from django.db import IntegrityError, models, transaction

from apps.accounts.models import REGISTER_ORDER, StudentBatch, User

# Read off a board or a screen: no 0/O or 1/I/L.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 7
MAX_NAME_LENGTH = 100


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: str) -> str:
    """What a student typed, as stored: upper case, without spaces or dashes."""
    return "".join(code.split()).replace("-", "").upper()


class SchoolClassQuerySet(models.QuerySet):
    def taught_by(self, user) -> "SchoolClassQuerySet":
        """The classes `user` teaches; the admin's are every class, a student's none."""
        if user.is_authenticated and user.is_admin:
            return self.all()
        if not (user.is_authenticated and user.is_teacher):
            return self.none()
        return self.filter(pk__in=Enrolment.objects.teaching(user).values("school_class"))

    def joined_by(self, user) -> "SchoolClassQuerySet":
        """The classes `user` is a student of."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(pk__in=Enrolment.objects.learning(user).values("school_class"))

    def with_counts(self) -> "SchoolClassQuerySet":
        students = models.Q(enrolments__role=Enrolment.Role.STUDENT)
        return self.annotate(student_count=models.Count("enrolments", filter=students))

    def create_for(self, teacher: User, name: str, **fields) -> "SchoolClass":
        """A class owned and taught by `teacher`, with a join code no other class has."""
        for _ in range(10):
            try:
                with transaction.atomic():
                    made = self.create(name=name, owner=teacher, code=new_code(), **fields)
                    made.enrol([teacher], Enrolment.Role.TEACHER)
                    return made
            except IntegrityError:  # a code taken a moment ago (31**7 of them: rare)
                continue
        raise RuntimeError("No free join code after 10 tries.")


class SchoolClass(models.Model):
    name = models.CharField(max_length=MAX_NAME_LENGTH)
    code = models.CharField(max_length=CODE_LENGTH, unique=True, help_text="The join code.")
    owner = models.ForeignKey(
        User,
        null=True,
        on_delete=models.SET_NULL,
        related_name="owned_classes",
        help_text="The teacher who made it: adds co-teachers, renames and deletes it.",
    )
    # The class's `sourcedId` in a OneRoster roster, so importing it again updates it.
    roster_id = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SchoolClassQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "class"
        verbose_name_plural = "classes"
        constraints = [
            models.UniqueConstraint(
                fields=["roster_id"], condition=~models.Q(roster_id=""), name="one_roster_class"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def students(self):
        return self.members(Enrolment.Role.STUDENT)

    @property
    def teachers(self):
        return self.members(Enrolment.Role.TEACHER)

    def members(self, role: str):
        """The class's students or teachers, as a register lists them."""
        enrolled = Enrolment.objects.filter(school_class=self, role=role).values("user")
        return User.objects.filter(pk__in=enrolled).order_by(*REGISTER_ORDER)

    def enrol(self, users, role: str, batch: StudentBatch | None = None) -> None:
        """Add `users` with `role`; one already in the class keeps their place."""
        rows = [Enrolment(school_class=self, user=user, role=role, batch=batch) for user in users]
        Enrolment.objects.bulk_create(rows, ignore_conflicts=True)


class EnrolmentQuerySet(models.QuerySet):
    def teaching(self, user) -> "EnrolmentQuerySet":
        return self.filter(user=user, role=Enrolment.Role.TEACHER)

    def learning(self, user) -> "EnrolmentQuerySet":
        return self.filter(user=user, role=Enrolment.Role.STUDENT)


class Enrolment(models.Model):
    """A person in a class, as one of its teachers or as a student (a role per class)."""

    class Role(models.TextChoices):
        TEACHER = "teacher"
        STUDENT = "student"

    school_class = models.ForeignKey(
        SchoolClass, on_delete=models.CASCADE, related_name="enrolments"
    )
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="enrolments")
    role = models.CharField(max_length=10, choices=Role.choices)
    # The accounts created for this class together (their passwords are stored by a worker).
    batch = models.ForeignKey(
        StudentBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="enrolments"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EnrolmentQuerySet.as_manager()

    class Meta:
        ordering = ["school_class", "role", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["school_class", "user"], name="one_enrolment_per_class")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.school_class} ({self.role})"
