"""Class set pages: "From your teacher" for students, handing out and taking back, and the
teacher's results per set with a CSV export."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.classes.errors import ClassError
from apps.study import errors, kinds, starting
from apps.study.classsets import gradebooks, results, results_csv
from apps.study.classsets.forms import HandOutForm
from apps.study.classsets.gradebooks import GRADEBOOKS
from apps.study.classsets.models import ClassSet
from apps.study.errors import StudyError
from apps.study.ownership import get_visible, is_student
from apps.vault.scope import MAX_ID


@require_GET
@login_required
def class_set_list(request: HttpRequest) -> HttpResponse:
    """A student's sets from their teachers with their own figures; a teacher's, those of the
    classes they teach (of one, with ?class=)."""
    sets = ClassSet.objects.readable_by(request.user).select_related("teacher", "school_class")
    chosen = request.GET.get("class", "")
    if chosen.isdigit() and int(chosen) <= MAX_ID:
        sets = sets.filter(school_class_id=int(chosen))
    sets = sets.with_items()
    student = is_student(request.user)
    rows = [
        (s, results.figures_of(s, request.user), quiz_status(s, request.user))
        if student
        else (s, None, None)
        for s in sets
    ]
    return render(request, "study/classsets/list.html", {"rows": rows, "student": student})


def quiz_status(class_set: ClassSet, student) -> dict | None:
    """A student's attempts left and when the answers show, for a class quiz."""
    if class_set.kind != "quiz":
        return None
    seat = class_set.item.seat_for(student, class_set)
    return {"left": seat.attempts_left, "answers": seat.answers_note}


@require_POST
@login_required
def class_set_create(request: HttpRequest) -> HttpResponse:
    """Hand one of one's own items to a class; on to the set's results."""
    form = HandOutForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            "Say what to hand out; a due date is a date; "
            "attempts are a number from 1 to 100, or unlimited.",
        )
        return redirect("study:class-set-list")
    data = form.cleaned_data
    try:
        school_class = starting.class_for(request.user, True, data["school_class"])
        model = kinds.get(data["kind"]).model
        item = get_visible(model.objects.visible_to, request.user, pk=data["item"])
        made = ClassSet.objects.hand_out(
            request.user, item, school_class, note=data["note"], due=data["due"], **form.policy()
        )
    except (StudyError, ClassError) as error:
        errors.show(request, error)
        return redirect("study:class-set-list")
    messages.success(request, f"Handed “{item.title}” out to {school_class.name}.")
    return redirect("study:class-set-detail", made.pk)


@require_POST
@login_required
def class_set_delete(request: HttpRequest, pk: int) -> HttpResponse:
    class_set = get_visible(ClassSet.objects.taught_by, request.user, pk=pk)
    title = class_set.item.title
    class_set.delete()
    messages.success(request, f"Took “{title}” back: students no longer see it.")
    return redirect("study:class-set-list")


@require_GET
@login_required
def class_set_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The class's results for one set: who started and finished, scores, most missed."""
    report = results.results(get_visible(ClassSet.objects.taught_by, request.user, pk=pk))
    return render(request, "study/classsets/detail.html", {"report": report})


@require_POST
@login_required
def class_set_release(request: HttpRequest, pk: int) -> HttpResponse:
    """Show the class the quiz's correct answers and explanations now."""
    class_set = get_visible(ClassSet.objects.taught_by, request.user, pk=pk)
    try:
        class_set.release()
    except StudyError as error:
        errors.show(request, error)
    else:
        messages.success(request, "Released the answers: students see them in their reviews.")
    return redirect("study:class-set-detail", pk)


@require_GET
@login_required
def class_set_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """?table=students (the default), attempts or questions; ?for=moodle or canvas, the marks
    as that gradebook's import file."""
    table, gradebook = request.GET.get("table", "students"), request.GET.get("for")
    if fmt != "csv" or table not in results_csv.TABLES or gradebook not in (None, *GRADEBOOKS):
        raise Http404(
            "Results export as CSV: students, attempts or questions, or for Moodle or Canvas."
        )
    class_set = get_visible(ClassSet.objects.taught_by, request.user, pk=pk)
    content, name = gradebooks.results_file(class_set, table, gradebook)
    response = HttpResponse(content, content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
