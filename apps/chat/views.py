"""The Chat section: threads in a sidebar, the conversation, the composer, attachments and
voice input."""

from urllib.parse import urlencode

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.ratelimits import RateLimited
from apps.chat import attachments, pushes, tasks
from apps.chat.conversation import conversation_context, starters
from apps.chat.forms import RenameForm
from apps.chat.models import Attachment, Message, Thread, Transcription
from apps.llm import gateway
from apps.vault.models import Document


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    threads = Thread.objects.visible_to(request.user)
    newest = threads.first()
    if newest is not None:
        return redirect("chat:thread", thread_id=newest.pk)
    has_documents = Document.objects.visible_to(request.user).exists()
    return render(
        request,
        "chat/index.html",
        {"has_documents": has_documents, "starters": starters},
    )


@require_POST
@login_required
def new_thread(request: HttpRequest) -> HttpResponse:
    thread = Thread.objects.create(owner=request.user)
    url = reverse("chat:thread", args=[thread.pk])
    question = request.POST.get("question", "").strip()[:500]
    if question:
        url += "?" + urlencode({"q": question})
    return redirect(url)


@require_GET
@login_required
def thread_page(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = get_object_or_404(Thread.objects.visible_to(request.user), pk=thread_id)
    pushes.interrupt(thread.messages.stale())
    context = conversation_context(thread)
    context["draft"] = request.GET.get("q", "")[:500]
    context["backend"] = gateway.current_backend()  # the page head only, never pushed
    return render(request, "chat/thread.html", context)


@require_POST
@login_required
def rename(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = get_object_or_404(Thread.objects.visible_to(request.user), pk=thread_id)
    form = RenameForm(request.POST, instance=thread)
    if form.is_valid():
        form.instance.titled = True
        form.save()
    else:
        flash.error(request, "A title needs 1 to 200 characters.")
    return redirect("chat:thread", thread_id=thread.pk)


@require_POST
@login_required
def delete(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = get_object_or_404(Thread.objects.visible_to(request.user), pk=thread_id)
    thread.request_stop()
    thread.delete()
    flash.success(request, "Chat deleted.")
    return redirect("chat:index")


@require_POST
@login_required
def attach(request: HttpRequest, thread_id: int) -> HttpResponse:
    """Store the file and show it as "reading…" while a worker reads it (attachment_chip)."""
    get_object_or_404(Thread.objects.visible_to(request.user), pk=thread_id)
    upload = request.FILES.get("file")
    try:
        attachment = attachments.accept(request.user, upload)
    except (attachments.AttachmentError, RateLimited) as error:
        response = render(
            request, "chat/thread.html#attachment-error", {"error": str(error)}, status=error.status
        )
        if isinstance(error, RateLimited):
            response["Retry-After"] = str(error.wait)
        return response
    tasks.read_attachment.delay_on_commit(attachment.pk)
    return render(request, "chat/thread.html#attachment-chip", {"attachment": attachment})


@require_GET
@login_required
def attachment_chip(request: HttpRequest, attachment_id: int) -> HttpResponse:
    """The attachment as the composer shows it: reading…, ready, or why it could not be read."""
    attachment = get_object_or_404(Attachment.objects.visible_to(request.user), pk=attachment_id)
    attachment.settle()  # its worker died while reading it: say so instead of reading… forever
    return render(request, "chat/thread.html#attachment-chip", {"attachment": attachment})


@require_GET
@login_required
def transcription(request: HttpRequest, transcription_id: int) -> HttpResponse:
    """A recording as the composer shows it while the jobs worker transcribes it (the page sends
    it to POST /api/v1/chat/transcribe): waiting, how far, the text for the question box, or
    why there is none."""
    transcription = get_object_or_404(
        Transcription.objects.visible_to(request.user), pk=transcription_id
    )
    transcription.settle()  # its worker died: say so instead of transcribing… forever
    return render(request, "chat/thread.html#transcription", {"transcription": transcription})


@require_GET
@login_required
def attachment_file(request: HttpRequest, attachment_id: int) -> FileResponse:
    attachment = get_object_or_404(Attachment.objects.visible_to(request.user), pk=attachment_id)
    if not attachment.path.is_file():
        raise Http404("The file is gone.")
    return FileResponse(
        attachment.path.open("rb"),
        filename=attachment.filename,
        as_attachment=attachment.kind != Attachment.Kind.IMAGE,
        content_type=attachments.CONTENT_TYPES[attachment.kind]
        if attachment.kind != Attachment.Kind.IMAGE
        else attachments.image_type(attachment.path),
    )


@require_POST
@login_required
def save_attachment(request: HttpRequest, attachment_id: int) -> HttpResponse:
    attachment = get_object_or_404(Attachment.objects.visible_to(request.user), pk=attachment_id)
    try:
        attachments.save_to_vault(attachment)
        note = f"{attachment.filename} is being added to your vault."
    except attachments.AttachmentError as error:
        note = str(error)
    if request.htmx:
        return render(
            request,
            "chat/thread.html#attachment-saved",
            {"attachment": attachment, "note": note},
        )
    flash.info(request, note)
    message: Message | None = attachment.message
    if message is not None:
        return redirect("chat:thread", thread_id=message.thread_id)
    return redirect("chat:index")
