from django.urls import path

from apps.study.mindmaps import views
from apps.study.views import delete

urlpatterns = [
    path("", views.mindmap_list, name="mindmap-list"),
    path("generate/", views.mindmap_generate, name="mindmap-generate"),
    path("new/", views.mindmap_create, name="mindmap-create"),
    path("<int:pk>/", views.mindmap_detail, name="mindmap-detail"),
    path("<int:pk>/layout/", views.mindmap_layout, name="mindmap-layout"),
    path("<int:pk>/reset/", views.mindmap_reset, name="mindmap-reset"),
    path("<int:pk>/toggle/", views.mindmap_toggle, name="mindmap-toggle"),
    path("<int:pk>/move/", views.mindmap_move, name="mindmap-move"),
    path("<int:pk>/rename/", views.mindmap_update, name="mindmap-update"),
    path("<int:pk>/delete/", delete, {"kind": "mindmap"}, name="mindmap-delete"),
    path("<int:pk>/export.<str:fmt>", views.mindmap_export, name="mindmap-export"),
]
