from django.urls import path

from apps.study.quizzes import views

urlpatterns = [
    path("", views.quizzes, name="quizzes"),
    path("<int:pk>/", views.quiz_play, name="quiz_play"),
    path("<int:pk>/answer/", views.quiz_answer, name="quiz_answer"),
    path("<int:pk>/submit/", views.quiz_submit, name="quiz_submit"),
    path("<int:pk>/retake/", views.quiz_retake, name="quiz_retake"),
    path("<int:pk>/attempts/<int:attempt_pk>/", views.quiz_review, name="quiz_review"),
    path("<int:pk>/export.<fmt>", views.quiz_export, name="quiz_export"),
]
