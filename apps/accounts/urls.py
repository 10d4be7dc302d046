from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy
from django.views.generic import RedirectView

from apps.accounts import views

app_name = "accounts"

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("accounts:settings")),
        name="password_change",
    ),
    path("badge/", views.badge_login, name="badge_login"),
    path("settings/", views.account_settings, name="settings"),
    path("settings/tokens/", views.create_token, name="create_token"),
    path("settings/tokens/<int:pk>/revoke/", views.revoke_token, name="revoke_token"),
    # The classroom became the Classes pages (apps/classes); old bookmarks land there.
    path("classroom/", RedirectView.as_view(pattern_name="classes:index"), name="classroom"),
]
