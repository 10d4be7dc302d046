from django.urls import path

from apps.study.workshops import views

urlpatterns = [
    path("", views.workshop_list, name="workshop-list"),
    path("<int:pk>/", views.workshop_detail, name="workshop-detail"),
    path("<int:pk>/lessons/<int:number>/", views.lesson_detail, name="lesson-detail"),
    path("<int:pk>/lessons/<int:number>/write/", views.lesson_write, name="lesson-write"),
    path("<int:pk>/lessons/<int:number>/complete/", views.lesson_complete, name="lesson-complete"),
    path("<int:pk>/recap/", views.workshop_recap, name="workshop-recap"),
    path("<int:pk>/export.<fmt>", views.workshop_export, name="workshop-export"),
]
