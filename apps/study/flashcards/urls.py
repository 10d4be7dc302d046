from django.urls import path

from apps.study.flashcards import views

urlpatterns = [
    path("", views.deck_list, name="decks"),
    path("generate/", views.deck_generate, name="deck_generate"),
    path("new/", views.deck_create, name="deck_create"),
    path("import/", views.deck_import, name="deck_import"),
    path("due/", views.due_study, name="due"),
    path("<int:pk>/", views.deck_detail, name="deck"),
    path("<int:pk>/rename/", views.deck_rename, name="deck_rename"),
    path("<int:pk>/delete/", views.deck_delete, name="deck_delete"),
    path("<int:pk>/study/", views.deck_study, name="deck_study"),
    path("<int:pk>/export.<str:fmt>", views.deck_export, name="deck_export"),
    path("<int:pk>/cards/", views.card_add, name="card_add"),
    path("<int:pk>/cards/<int:card_pk>/", views.card_edit, name="card_edit"),
    path("<int:pk>/cards/<int:card_pk>/delete/", views.card_delete, name="card_delete"),
    path("<int:pk>/cards/<int:card_pk>/flip/", views.card_flip, name="card_flip"),
    path("<int:pk>/cards/<int:card_pk>/review/", views.card_review, name="card_review"),
]
