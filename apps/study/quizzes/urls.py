from django.urls import path

from apps.study.quizzes import views

urlpatterns = [
    path("", views.quiz_list, name="quiz-list"),
    path("import/", views.quiz_import, name="quiz-import"),
    path("<int:pk>/", views.quiz_detail, name="quiz-detail"),
    path("<int:pk>/answer/", views.quiz_answer, name="quiz-answer"),
    path("<int:pk>/submit/", views.quiz_submit, name="quiz-submit"),
    path("<int:pk>/retake/", views.quiz_retake, name="quiz-retake"),
    path("<int:pk>/attempts/<int:attempt_pk>/", views.attempt_detail, name="attempt-detail"),
    path("<int:pk>/export.<fmt>", views.quiz_export, name="quiz-export"),
    path("<int:pk>/edit/", views.quiz_edit, name="quiz-edit"),
    path("<int:pk>/questions/<int:position>/", views.question_update, name="question-update"),
    path(
        "<int:pk>/questions/<int:position>/delete/",
        views.question_delete,
        name="question-delete",
    ),
]
