from django.urls import path

from apps.study import views

app_name = "study"

urlpatterns = [
    path("", views.quizzes, name="index"),  # the hub opens on its first tab
    path("quizzes/", views.quizzes, name="quizzes"),
    path("quizzes/<int:pk>/", views.quiz_play, name="quiz_play"),
    path("quizzes/<int:pk>/answer/", views.quiz_answer, name="quiz_answer"),
    path("quizzes/<int:pk>/submit/", views.quiz_submit, name="quiz_submit"),
    path("quizzes/<int:pk>/retake/", views.quiz_retake, name="quiz_retake"),
    path("quizzes/<int:pk>/attempts/<int:attempt_pk>/", views.quiz_review, name="quiz_review"),
    path("quizzes/<int:pk>/export.<fmt>", views.quiz_export, name="quiz_export"),
    path("sources/<int:chunk_pk>/", views.source, name="source"),
    path("workshops/", views.workshops, name="workshops"),
    path("workshops/<int:pk>/lessons/<int:number>/", views.lesson, name="lesson"),
    path("workshops/<int:pk>/lessons/<int:number>/write/", views.lesson_write, name="lesson_write"),
    path(
        "workshops/<int:pk>/lessons/<int:number>/complete/",
        views.lesson_complete,
        name="lesson_complete",
    ),
    path("workshops/<int:pk>/recap/", views.workshop_recap, name="workshop_recap"),
    path("workshops/<int:pk>/export.<fmt>", views.workshop_export, name="workshop_export"),
]

# --- Flashcards and mindmaps ---------------------------------------------------------------
urlpatterns += [
    path("decks/", views.deck_list, name="decks"),
    path("decks/generate/", views.deck_generate, name="deck_generate"),
    path("decks/new/", views.deck_create, name="deck_create"),
    path("decks/import/", views.deck_import, name="deck_import"),
    path("decks/due/", views.due_study, name="due"),
    path("decks/<int:pk>/", views.deck_detail, name="deck"),
    path("decks/<int:pk>/rename/", views.deck_rename, name="deck_rename"),
    path("decks/<int:pk>/delete/", views.deck_delete, name="deck_delete"),
    path("decks/<int:pk>/study/", views.deck_study, name="deck_study"),
    path("decks/<int:pk>/export.<str:fmt>", views.deck_export, name="deck_export"),
    path("decks/<int:pk>/cards/", views.card_add, name="card_add"),
    path("decks/<int:pk>/cards/<int:card_pk>/", views.card_edit, name="card_edit"),
    path("decks/<int:pk>/cards/<int:card_pk>/delete/", views.card_delete, name="card_delete"),
    path("decks/<int:pk>/cards/<int:card_pk>/flip/", views.card_flip, name="card_flip"),
    path("decks/<int:pk>/cards/<int:card_pk>/review/", views.card_review, name="card_review"),
    path("mindmaps/", views.mindmap_list, name="mindmaps"),
    path("mindmaps/generate/", views.mindmap_generate, name="mindmap_generate"),
    path("mindmaps/new/", views.mindmap_create, name="mindmap_create"),
    path("mindmaps/<int:pk>/", views.mindmap_detail, name="mindmap"),
    path("mindmaps/<int:pk>/layout/", views.mindmap_layout, name="mindmap_layout"),
    path("mindmaps/<int:pk>/reset/", views.mindmap_reset, name="mindmap_reset"),
    path("mindmaps/<int:pk>/toggle/", views.mindmap_toggle, name="mindmap_toggle"),
    path("mindmaps/<int:pk>/move/", views.mindmap_move, name="mindmap_move"),
    path("mindmaps/<int:pk>/rename/", views.mindmap_rename, name="mindmap_rename"),
    path("mindmaps/<int:pk>/delete/", views.mindmap_delete, name="mindmap_delete"),
    path("mindmaps/<int:pk>/export.<str:fmt>", views.mindmap_export, name="mindmap_export"),
]
