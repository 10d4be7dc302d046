"""The Classes pages: a teacher's classes (the admin's: every class, and the teachers), one
class with its join code, students, login cards and batches, and a student joining by code.
Every class, student and batch comes from apps/classes/reach.py: 404 when not reached."""

import base64
import binascii

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts import lockout, ratelimits, sessions, tls
from apps.accounts.forms import StudentListForm
from apps.accounts.lan import bases, join_urls
from apps.accounts.models import StudentBatch, User
from apps.accounts.views import admin_required, teacher_required
from apps.classes import cards, reach, roster_files, rosters
from apps.classes.errors import ClassError, NotAllowed
from apps.classes.forms import ClassForm, JoinForm, UsernameForm
from apps.classes.models import SchoolClass
from apps.classes.roster_files import UnreadableRoster


def owned(request: HttpRequest, pk: int) -> SchoolClass:
    """The class for what only its owner (or the admin) does; its other teachers get a 403 page
    that says so, anyone else a 404."""
    try:
        return reach.owned_class(request.user, pk)
    except NotAllowed as error:
        raise PermissionDenied(str(error)) from error


def qr_svg(url: str) -> str:
    # segno writes the SVG from the URL alone; no user input reaches it.
    return mark_safe(segno.make(url).svg_inline(scale=5))


@require_GET
@login_required
def class_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    if not user.is_teacher:
        joined = SchoolClass.objects.joined_by(user)
        return render(request, "classes/joined.html", {"classes": joined, "form": JoinForm()})
    return render_list(request)


def render_list(request: HttpRequest, status: int = 200, **context) -> HttpResponse:
    user = request.user
    context |= {"classes": reach.classes(user).with_counts(), "form": ClassForm()}
    if user.is_admin:
        teachers = User.objects.filter(is_staff=True).order_by("username")
        context |= {"teachers": teachers, "teacher_form": StudentListForm()}
    return render(request, "classes/list.html", context, status=status)


@require_POST
@teacher_required
def create_class(request: HttpRequest) -> HttpResponse:
    form = ClassForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["name"]))
        return redirect("classes:index")
    made = SchoolClass.objects.create_for(request.user, form.cleaned_data["name"])
    return redirect("classes:detail", made.pk)


def render_class(request: HttpRequest, school_class: SchoolClass, form=None, status=200):
    students = list(reach.students(request.user, school_class).prefetch_related("api_tokens"))
    logged_in = sessions.sessions_by_user(student.pk for student in students)
    locked = lockout.locked_usernames(student.username for student in students)
    for student in students:
        student.sessions = logged_in.get(student.pk, [])
        student.locked = student.username in locked
    join_url = bases(request)[0] + reverse("classes:join") + f"?code={school_class.code}"
    context = {
        "school_class": school_class,
        "teachers": school_class.teachers,
        "owns": request.user.is_admin or school_class.owner_id == request.user.pk,
        "students": students,
        "unfinished_batches": reach.batches(request.user, school_class).exclude(
            status=StudentBatch.Status.READY
        ),
        "form": form or StudentListForm(),
        "join_urls": join_urls(request),
        "class_join_url": join_url,
        "join_qr": qr_svg(join_url),
        "fingerprint": tls.fingerprint(),
    }
    return render(request, "classes/detail.html", context, status=status)


@require_GET
@teacher_required
def class_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render_class(request, reach.school_class(request.user, pk))


@require_POST
@teacher_required
def rename_class(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = owned(request, pk)
    form = ClassForm(request.POST)
    if form.is_valid():
        school_class.name = form.cleaned_data["name"]
        school_class.save(update_fields=["name"])
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def delete_class(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = owned(request, pk)
    school_class.delete()
    messages.success(
        request, f"Deleted the class {school_class.name}; its students' accounts stay."
    )
    return redirect("classes:index")


@require_POST
@teacher_required
def add_teacher(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = owned(request, pk)
    form = UsernameForm(request.POST)
    if form.is_valid():
        teacher = rosters.add_teacher(school_class, form.cleaned_data["username"])
        messages.success(request, f"{teacher.username} teaches {school_class.name} now.")
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def create_students(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = reach.school_class(request.user, pk)
    form = StudentListForm(request.POST)
    if not form.is_valid():
        return render_class(request, school_class, form, status=422)
    batch, created = rosters.create_students(school_class, form.cleaned_data["names"], request.user)
    return cards.sheet(request, school_class, created, batch)


@require_POST
@teacher_required
def enrol_students(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = reach.school_class(request.user, pk)
    names = request.POST.get("usernames", "").split()
    enrolled, not_found = rosters.enrol_existing(request.user, school_class, names)
    if enrolled:
        messages.success(request, f"Added {', '.join(enrolled)}.")
    if not_found:
        messages.error(
            request,
            f"Not added: {', '.join(not_found)}. A student you do not teach joins with the "
            f"class code {school_class.code}.",
        )
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def remove_student(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    school_class = reach.school_class(request.user, pk)
    student = reach.student(request.user, student_pk, school_class)
    student.enrolments.filter(school_class=school_class).delete()
    messages.success(request, f"{student.username} left {school_class.name}; the account stays.")
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def import_roster(request: HttpRequest) -> HttpResponse:
    """A roster file, or (`kept`) the one whose errors were just shown, with `confirm` to apply
    its good rows: the new accounts' login cards are the answer (docs/classroom.md#rosters)."""
    try:
        data = roster_sent(request.FILES.get("file"), request.POST.get("kept", ""))
        imported = rosters.import_roster(request.user, data, confirm="confirm" in request.POST)
    except ClassError as error:
        return render_list(request, error.status, import_error=str(error))
    if not imported.applied:
        kept = base64.b64encode(data).decode()
        response = render_list(request, 422, imported=imported, kept=kept)
        response["Cache-Control"] = "no-store"  # the page holds the file
        return response
    errors = len(imported.errors)
    were = pluralize(errors, "was,were")
    left_out = f" {errors} row{pluralize(errors)} with errors {were} left out." if errors else ""
    messages.success(
        request,
        f"Roster imported: {len(imported.created)} accounts made, {imported.updated} "
        f"updated.{left_out}",
    )
    if not imported.created:
        return redirect("classes:index")
    return cards.sheet(request, imported.school_class, imported.created, imported.batch)


def roster_sent(upload, kept_text: str) -> bytes:
    """The roster's bytes: a file chosen now, or the one a page with its errors kept."""
    if upload is not None:
        return roster_files.upload(upload)
    try:
        kept = base64.b64decode(kept_text, validate=True)
    except binascii.Error as error:
        raise UnreadableRoster("Choose the roster file again.") from error
    if not kept:
        raise UnreadableRoster("Choose a roster file.")
    return kept


@require_http_methods(["GET", "POST"])
@login_required
def join(request: HttpRequest) -> HttpResponse:
    """A student types (or scans) a class's code; the GET only shows the form, filled in."""
    if request.method == "GET":
        form = JoinForm(initial={"code": request.GET.get("code", "")})
        return render(request, "classes/join.html", {"form": form})
    form = JoinForm(request.POST)
    if not form.is_valid():
        return render(request, "classes/join.html", {"form": form}, status=422)
    ratelimits.check(request, "RATE_LIMIT_CLASS_JOINS", "class codes")
    try:
        joined = rosters.join(request.user, form.cleaned_data["code"])
    except ClassError as error:
        form.add_error("code", str(error))
        return render(request, "classes/join.html", {"form": form}, status=error.status)
    messages.success(request, f"You joined {joined.name}.")
    return redirect("classes:index")


@require_POST
@admin_required
def create_teachers(request: HttpRequest) -> HttpResponse:
    form = StudentListForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["names"]))
        return redirect("classes:index")
    made = User.objects.create_teachers(form.cleaned_data["names"])
    return render(request, "classes/teachers_made.html", {"credentials": made})


@require_POST
@admin_required
def reset_teacher_password(request: HttpRequest, teacher_pk: int) -> HttpResponse:
    teacher = get_object_or_404(
        User.objects.filter(is_staff=True, is_superuser=False), pk=teacher_pk
    )
    return render(
        request,
        "classes/teachers_made.html",
        {"credentials": [(teacher, teacher.reset_password())]},
    )
