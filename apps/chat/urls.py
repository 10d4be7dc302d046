from django.urls import path

from apps.chat import views

app_name = "chat"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new_thread, name="new"),
    path("<int:thread_id>/", views.thread_page, name="thread"),
    path("<int:thread_id>/rename/", views.rename, name="rename"),
    path("<int:thread_id>/delete/", views.delete, name="delete"),
    path("<int:thread_id>/attachments/", views.attach, name="attach"),
    path("attachments/<int:attachment_id>/", views.attachment_file, name="attachment"),
    path("attachments/<int:attachment_id>/chip/", views.attachment_chip, name="attachment_chip"),
    path("attachments/<int:attachment_id>/save/", views.save_attachment, name="save_attachment"),
    path("transcriptions/<int:transcription_id>/", views.transcription, name="transcription"),
]
