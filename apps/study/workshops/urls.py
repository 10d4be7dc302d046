from django.urls import path

from apps.study.workshops import views

urlpatterns = [
    path("", views.workshops, name="workshops"),
    path("<int:pk>/lessons/<int:number>/", views.lesson, name="lesson"),
    path("<int:pk>/lessons/<int:number>/write/", views.lesson_write, name="lesson_write"),
    path("<int:pk>/lessons/<int:number>/complete/", views.lesson_complete, name="lesson_complete"),
    path("<int:pk>/recap/", views.workshop_recap, name="workshop_recap"),
    path("<int:pk>/export.<fmt>", views.workshop_export, name="workshop_export"),
]
