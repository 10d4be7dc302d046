from django.urls import path

from apps.progress import views

app_name = "progress"

urlpatterns = [
    path("", views.index, name="index"),
    path("days/<str:day>/", views.day_detail, name="day"),
    path("class/", views.class_overview, name="class"),
]
