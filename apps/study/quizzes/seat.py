"""A person's seat at a quiz: what a request needs about (quiz, person), worked out once and
passed to everything the request calls. Their policy (the owner's own rules, or the class
set's for a student it is handed out to, with that class set), their paper (the order they
see), the attempts they handed in and have left, and whether their marks, the correct answers
and the passages the questions were cut from show now.

`Quiz.seat_for(person)` makes one: no query for the owner, two for a student (the class set,
its teacher's time zone); the paper and the attempts handed in are read when first asked for.
"""

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from django.db.models import prefetch_related_objects
from django.utils import timezone

from apps.study.classsets.policy import QuizPolicy
from apps.study.quizzes.paper import Paper


@dataclass(frozen=True)
class Seat:
    quiz: object  # a quizzes.models.Quiz
    person: object  # the one answering: its owner, or a student it is handed out to
    policy: QuizPolicy
    class_set: object | None = None  # the student's class set it is handed out in; else None
    now: datetime = field(default_factory=timezone.now)

    @property
    def class_id(self) -> int | None:
        """The class the answers count for (its overview's most-missed questions); None for
        the owner's own quiz."""
        return self.class_set.school_class_id if self.class_set else None

    @property
    def owner(self) -> bool:
        return self.person.pk == self.quiz.owner_id

    @cached_property
    def paper(self) -> Paper:
        """The questions in the order `person` sees them: shuffled for a student on a class
        set, the quiz's own order for its owner. The questions are read once for the request:
        the check, the grade and the review read them from the quiz too."""
        prefetch_related_objects([self.quiz], "questions")
        return Paper(self.quiz, self.person if self.policy.for_class else None)

    @cached_property
    def submitted(self) -> int:
        """How many attempts `person` has handed in (counted once, when first asked)."""
        return self.quiz.handed_in_by(self.person).count()

    @property
    def attempts_left(self) -> int | None:
        """How many more attempts `person` may start (None: unlimited)."""
        if self.policy.attempts is None:
            return None
        return self.policy.attempts_left(self.submitted)

    @property
    def answers_shown(self) -> bool:
        """Whether `person` may see the correct answers and explanations of a submitted attempt
        now, and the passages its questions were cut from (which hold the answers): every page
        and API route asks this, and nothing else."""
        return self.policy.shown(self.policy.reveal, self.now)

    @property
    def marks_shown(self) -> bool:
        """Whether `person` may see their attempts' scores now (how many answers were right;
        which ones is the answer key's): every page and API route asks this, and nothing else."""
        return self.policy.shown(self.policy.marks, self.now)

    @property
    def sources_shown(self) -> bool:
        """Whether the passages the questions were cut from show (their chunk ids, the links to
        them): a passage holds its question's answer, so only with the answer key, and only
        after an attempt of one's own ("after each attempt" is no key before the first)."""
        return self.owner or (self.answers_shown and self.submitted > 0)

    @property
    def answers_note(self) -> str:
        """For the student: when their marks and the correct answers show."""
        return self.policy.when_revealed(self.now)
