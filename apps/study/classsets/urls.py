from django.urls import path

from apps.study.classsets import views

urlpatterns = [
    path("", views.class_set_list, name="class-set-list"),
    path("hand-out/", views.class_set_create, name="class-set-create"),
    path("<int:pk>/", views.class_set_detail, name="class-set-detail"),
    path("<int:pk>/take-back/", views.class_set_delete, name="class-set-delete"),
    path("<int:pk>/release/", views.class_set_release, name="class-set-release"),
    path("<int:pk>/results.<str:fmt>", views.class_set_export, name="class-set-export"),
]
