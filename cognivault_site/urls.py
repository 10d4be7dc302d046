from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from apps.accounts.views import home
from cognivault_site import errors
from cognivault_site.api import api

admin.site.site_header = "CogniVault administration"
admin.site.site_title = "CogniVault"

urlpatterns = [
    path("", home, name="home"),
    path("accounts/", include("apps.accounts.urls")),
    path("classes/", include("apps.classes.urls")),
    path("chat/", include("apps.chat.urls")),
    path("vault/", include("apps.vault.urls")),
    path("study/", include("apps.study.urls")),
    path("progress/", include("apps.progress.urls")),
    path("privacy/", include("apps.llm.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    # Browsers ask for /favicon.ico whatever the page links; every page links this one.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
]

# Django's own refusals: JSON under /api/, the pages' templates elsewhere.
handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error
