from django.urls import path

from apps.chat import views

app_name = "chat"

urlpatterns = [
    path("", views.index, name="index"),
]
