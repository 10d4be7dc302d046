# Chats are private to their owner: teachers see progress figures, never conversations,
# so the chat models are deliberately not registered in the admin.
