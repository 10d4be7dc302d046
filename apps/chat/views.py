from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.vault.models import Document


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    has_documents = Document.objects.visible_to(request.user).exists()
    return render(request, "chat/index.html", {"has_documents": has_documents})
