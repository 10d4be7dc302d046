"""Looking after a student's account from their class's page: a new password or login card,
their API tokens, sessions and lockout, and the batch their account was made in. The student
comes from apps/classes/reach.py: one a teacher does not teach is a 404."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.accounts import lockout, sessions, tasks
from apps.accounts.models import ApiToken, StudentBatch
from apps.accounts.views import teacher_required
from apps.classes import cards, reach


def reached(request: HttpRequest, pk: int, student_pk: int):
    school_class = reach.school_class(request.user, pk)
    return school_class, reach.student(request.user, student_pk, school_class)


@require_POST
@teacher_required
def reset_password(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    school_class, student = reached(request, pk, student_pk)
    password = student.reset_password(by=request.user)  # ends their tokens and sessions too
    return cards.sheet(request, school_class, [(student, password)])


@require_POST
@teacher_required
def print_card(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    """A new login card (the password stays): the old one stops working."""
    school_class, student = reached(request, pk, student_pk)
    student.new_card(by=request.user)
    return cards.sheet(request, school_class, [(student, None)])


@require_POST
@teacher_required
def print_missing_cards(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = reach.school_class(request.user, pk)
    students = cards.issue_missing(reach.students(request.user, school_class), by=request.user)
    if not students:
        messages.info(request, "Every student of this class has a login card already.")
        return redirect("classes:detail", pk)
    return cards.sheet(request, school_class, [(student, None) for student in students])


@require_POST
@teacher_required
def revoke_card(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    _, student = reached(request, pk, student_pk)
    student.revoke_card(by=request.user)
    messages.success(request, f"{student.username}’s login card no longer works.")
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def revoke_token(request: HttpRequest, pk: int, student_pk: int, token_pk: int) -> HttpResponse:
    _, student = reached(request, pk, student_pk)
    token = get_object_or_404(ApiToken.objects.visible_to(student), pk=token_pk)
    token.delete()
    messages.success(request, f"Revoked {student.username}’s token {token.name}.")
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def end_sessions(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    """Log a student out: one session (`session`, as listed) or, without it, all of them."""
    _, student = reached(request, pk, student_pk)
    ref = request.POST.get("session")
    ended = sessions.end_sessions(student, {ref} if ref else None)
    messages.success(request, f"Logged {student.username} out of {ended} session(s).")
    return redirect("classes:detail", pk)


@require_POST
@teacher_required
def unlock(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    """Lift the lockout wrong passwords put on a student's account, from every address."""
    _, student = reached(request, pk, student_pk)
    lockout.unlock(student)
    messages.success(request, f"{student.username} can log in again.")
    return redirect("classes:detail", pk)


@require_GET
@teacher_required
def batch_progress(request: HttpRequest, pk: int, batch_pk: int) -> HttpResponse:
    school_class = reach.school_class(request.user, pk)
    batch = reach.batch(request.user, batch_pk, school_class)
    context = {"batch": batch, "school_class": school_class}
    return render(request, "classes/cards.html#batch-progress", context)


@require_POST
@teacher_required
def retry_batch(request: HttpRequest, pk: int, batch_pk: int) -> HttpResponse:
    """Queue an unfinished batch again (a worker that died, or none running then)."""
    school_class = reach.school_class(request.user, pk)
    unfinished = reach.batches(request.user, school_class).exclude(status=StudentBatch.Status.READY)
    batch = get_object_or_404(unfinished, pk=batch_pk)
    tasks.enqueue(batch.pk)
    messages.success(request, f"The passwords of {batch.total} students are queued again.")
    return redirect("classes:detail", pk)
