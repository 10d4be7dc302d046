from django.urls import path

from apps.classes import student_views, views

app_name = "classes"

student = "<int:pk>/students/<int:student_pk>"

urlpatterns = [
    path("", views.class_list, name="index"),
    path("new/", views.create_class, name="create"),
    path("join/", views.join, name="join"),
    path("import/", views.import_roster, name="import"),
    path("teachers/", views.create_teachers, name="create_teachers"),
    path(
        "teachers/<int:teacher_pk>/reset/",
        views.reset_teacher_password,
        name="reset_teacher_password",
    ),
    path("<int:pk>/", views.class_detail, name="detail"),
    path("<int:pk>/rename/", views.rename_class, name="rename"),
    path("<int:pk>/delete/", views.delete_class, name="delete"),
    path("<int:pk>/teachers/", views.add_teacher, name="add_teacher"),
    path("<int:pk>/students/", views.create_students, name="create_students"),
    path("<int:pk>/enrolments/", views.enrol_students, name="enrol_students"),
    path("<int:pk>/cards/", student_views.print_missing_cards, name="print_missing_cards"),
    path("<int:pk>/batches/<int:batch_pk>/", student_views.batch_progress, name="batch"),
    path("<int:pk>/batches/<int:batch_pk>/retry/", student_views.retry_batch, name="retry_batch"),
    path(f"{student}/remove/", views.remove_student, name="remove_student"),
    path(f"{student}/reset/", student_views.reset_password, name="reset_password"),
    path(f"{student}/card/", student_views.print_card, name="print_card"),
    path(f"{student}/card/revoke/", student_views.revoke_card, name="revoke_card"),
    path(f"{student}/unlock/", student_views.unlock, name="unlock"),
    path(f"{student}/sessions/end/", student_views.end_sessions, name="end_sessions"),
    path(
        f"{student}/tokens/<int:token_pk>/revoke/", student_views.revoke_token, name="revoke_token"
    ),
]
