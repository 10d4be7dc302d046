from django.urls import path

from apps.study import views

app_name = "study"

urlpatterns = [
    path("", views.quizzes, name="index"),  # the hub opens on its first tab
    path("quizzes/", views.quizzes, name="quizzes"),
    path("quizzes/<int:pk>/", views.quiz_play, name="quiz_play"),
    path("quizzes/<int:pk>/answer/", views.quiz_answer, name="quiz_answer"),
    path("quizzes/<int:pk>/submit/", views.quiz_submit, name="quiz_submit"),
    path("quizzes/<int:pk>/retake/", views.quiz_retake, name="quiz_retake"),
    path("quizzes/<int:pk>/attempts/<int:attempt_pk>/", views.quiz_review, name="quiz_review"),
    path("quizzes/<int:pk>/export.<fmt>", views.quiz_export, name="quiz_export"),
    path("sources/<int:chunk_pk>/", views.source, name="source"),
    path("workshops/", views.workshops, name="workshops"),
    path("workshops/<int:pk>/lessons/<int:number>/", views.lesson, name="lesson"),
    path("workshops/<int:pk>/lessons/<int:number>/write/", views.lesson_write, name="lesson_write"),
    path(
        "workshops/<int:pk>/lessons/<int:number>/complete/",
        views.lesson_complete,
        name="lesson_complete",
    ),
    path("workshops/<int:pk>/recap/", views.workshop_recap, name="workshop_recap"),
    path("workshops/<int:pk>/export.<fmt>", views.workshop_export, name="workshop_export"),
]
