from django.urls import path

from apps.vault import views
from apps.vault.reading import views as reading

app_name = "vault"

urlpatterns = [
    path("", views.index, name="index"),
    path("search/", views.search, name="search"),
    path("upload/", views.upload, name="upload"),
    path("urls/", views.import_url, name="import_url"),
    path("ingest/", views.ingest_all, name="ingest_all"),
    path("documents/<int:pk>/", reading.reader, name="reader"),
    path("documents/<int:pk>/pages/<int:number>/", reading.page, name="reader-page"),
    path("passages/<int:chunk_pk>/", reading.passage, name="passage"),
    path("documents/<int:pk>/delete/", views.delete_document, name="delete_document"),
    path("documents/<int:pk>/download/", views.allow_download, name="allow_download"),
    path("documents/<int:pk>/reingest/", views.reingest_document, name="reingest_document"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("categories/", views.create_category, name="create_category"),
    path("categories/<int:pk>/delete/", views.delete_category, name="delete_category"),
]
