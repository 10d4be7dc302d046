from django.urls import path

from apps.study.mindmaps import views

urlpatterns = [
    path("", views.mindmap_list, name="mindmaps"),
    path("generate/", views.mindmap_generate, name="mindmap_generate"),
    path("new/", views.mindmap_create, name="mindmap_create"),
    path("<int:pk>/", views.mindmap_detail, name="mindmap"),
    path("<int:pk>/layout/", views.mindmap_layout, name="mindmap_layout"),
    path("<int:pk>/reset/", views.mindmap_reset, name="mindmap_reset"),
    path("<int:pk>/toggle/", views.mindmap_toggle, name="mindmap_toggle"),
    path("<int:pk>/move/", views.mindmap_move, name="mindmap_move"),
    path("<int:pk>/rename/", views.mindmap_rename, name="mindmap_rename"),
    path("<int:pk>/delete/", views.mindmap_delete, name="mindmap_delete"),
    path("<int:pk>/export.<str:fmt>", views.mindmap_export, name="mindmap_export"),
]
