from django.urls import path

from apps.study import views

app_name = "study"

urlpatterns = [
    path("", views.index, name="index"),
]
