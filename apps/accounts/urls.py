from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

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
    path("classroom/", views.classroom, name="classroom"),
    path("classroom/students/", views.create_students, name="create_students"),
    path("classroom/students/<int:pk>/reset/", views.reset_student_password, name="reset_password"),
    path(
        "classroom/students/<int:pk>/tokens/<int:token_pk>/revoke/",
        views.revoke_student_token,
        name="revoke_student_token",
    ),
    path("classroom/badges/", views.issue_missing_badges, name="issue_missing_badges"),
    path("classroom/students/<int:pk>/badge/", views.issue_badge, name="issue_badge"),
    path("classroom/students/<int:pk>/badge/qr/", views.badge_qr, name="badge_qr"),
    path("classroom/students/<int:pk>/badge/revoke/", views.revoke_badge, name="revoke_badge"),
    path("classroom/batches/<int:pk>/", views.batch_progress, name="batch"),
    path("classroom/batches/<int:pk>/retry/", views.retry_batch, name="retry_batch"),
    path("classroom/students/<int:pk>/unlock/", views.unlock_student, name="unlock_student"),
    path(
        "classroom/students/<int:pk>/sessions/end/",
        views.end_student_sessions,
        name="end_student_sessions",
    ),
]
