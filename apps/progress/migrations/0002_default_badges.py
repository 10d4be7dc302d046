"""The 25 badges of the product, as data. Teachers change, disable or add badges in the admin;
this migration only loads the starting set (and never overwrites a row that exists)."""

from django.db import migrations

# (code, name, icon, description, category, metric, target, next level)
BADGES = [
    ("first_question", "First Question", "💬", "Ask your first question.",
     "chat", "messages", 1, "centurion"),
    ("conversationalist", "Conversationalist", "🗣️", "Send 10 messages in one day.",
     "chat", "max_messages_in_a_day", 10, None),
    ("centurion", "Centurion", "💯", "Send 100 messages.",
     "chat", "messages", 100, None),
    ("hour_of_power", "Hour of Power", "⏱️", "Study for one hour in total.",
     "chat", "study_minutes", 60, None),
    ("streak_3", "On a Roll", "🔥", "Study three days in a row.",
     "chat", "longest_streak", 3, "streak_7"),
    ("streak_7", "Week Strong", "📅", "Study seven days in a row.",
     "chat", "longest_streak", 7, None),
    ("deep_diver", "Deep Diver", "🤿", "Keep one study session going for 30 minutes.",
     "chat", "longest_session_minutes", 30, None),
    ("night_owl", "Night Owl", "🦉", "Study between 22:00 and 04:00.",
     "chat", "night_owl_sessions", 1, None),
    ("early_bird", "Early Bird", "🐦", "Study between 05:00 and 08:00.",
     "chat", "early_bird_sessions", 1, None),
    ("curious_mind", "Curious Mind", "🔎", "Narrow a question with the scope filter.",
     "chat", "scoped_messages", 1, None),
    ("first_quiz", "First Quiz", "📝", "Complete your first quiz.",
     "quiz", "quizzes", 1, "quiz_marathon"),
    ("perfect_score", "Perfect Score", "🎯", "Answer every question of a quiz correctly.",
     "quiz", "perfect_quizzes", 1, None),
    ("advanced_scholar", "Advanced Scholar", "🎓", "Pass an advanced quiz with 80 % or more.",
     "quiz", "advanced_quizzes_passed", 1, None),
    ("quiz_marathon", "Quiz Marathon", "🏃", "Complete 10 quizzes.",
     "quiz", "quizzes", 10, None),
    ("workshop_outline", "Blueprint", "🗺️", "Generate your first workshop outline.",
     "workshop", "outlines", 1, "lesson_learned"),
    ("lesson_learned", "Lesson Learned", "📖", "Complete your first lesson.",
     "workshop", "lessons", 1, "workshop_graduate"),
    ("workshop_graduate", "Workshop Graduate", "🏅", "Complete a whole workshop.",
     "workshop", "workshops", 1, "workshop_marathon"),
    ("workshop_marathon", "Workshop Marathon", "🏆", "Complete 5 workshops.",
     "workshop", "workshops", 5, None),
    ("first_deck", "First Deck", "🗂️", "Create your first flashcard deck.",
     "flashcards", "decks", 1, "deck_collector"),
    ("card_reviewer", "Card Reviewer", "🃏", "Flip 50 flashcards.",
     "flashcards", "card_flips", 50, None),
    ("deck_master", "Deck Master", "👑", "Master every card of a deck.",
     "flashcards", "decks_mastered", 1, None),
    ("deck_collector", "Deck Collector", "📚", "Create 5 flashcard decks.",
     "flashcards", "decks", 5, None),
    ("mind_mapper", "Mind Mapper", "🧠", "Create your first mindmap.",
     "mindmap", "mindmaps", 1, "concept_network"),
    ("cartographer", "Cartographer", "🧭", "Export a mindmap for the first time.",
     "mindmap", "mindmap_exports", 1, None),
    ("concept_network", "Concept Network", "🕸️", "Create 5 mindmaps.",
     "mindmap", "mindmaps", 5, None),
]


def load_badges(apps, schema_editor):
    BadgeDefinition = apps.get_model("progress", "BadgeDefinition")
    rows = {}
    for position, (code, name, icon, description, category, metric, target, _) in enumerate(
        BADGES, start=1
    ):
        rows[code], _ = BadgeDefinition.objects.get_or_create(
            code=code,
            defaults={
                "name": name,
                "icon": icon,
                "description": description,
                "category": category,
                "metric": metric,
                "target": target,
                "position": position * 10,
            },
        )
    for code, *_, next_code in BADGES:
        if next_code and rows[code].next_level_id is None:
            rows[code].next_level = rows[next_code]
            rows[code].save(update_fields=["next_level"])


def unload_badges(apps, schema_editor):
    BadgeDefinition = apps.get_model("progress", "BadgeDefinition")
    BadgeDefinition.objects.filter(code__in=[row[0] for row in BADGES]).delete()


class Migration(migrations.Migration):
    dependencies = [("progress", "0001_initial")]

    operations = [migrations.RunPython(load_badges, unload_badges)]
