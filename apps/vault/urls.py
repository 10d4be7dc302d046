from django.urls import path

from apps.vault import views

app_name = "vault"

urlpatterns = [
    path("", views.index, name="index"),
    path("search/", views.search, name="search"),
]
