"""The sheet of login cards as the teacher's browser receives it, for a class of any size."""

# Names of every length a class has: long ones whose username is long too, and short ones.
NAMES = ["Maximiliane Printcard-Overflow", "Bo Li", "Carla Wide", "Jean-Baptiste Okonkwo-Lindqvist"]


def class_names(students: int, tag: str) -> list[str]:
    """`students` distinct names (each class of a test its own `tag`)."""
    return [f"{NAMES[i % len(NAMES)]} {tag}{i}" for i in range(students)]


def open_sheet(page, names: list[str]) -> None:
    """A teacher's `page` makes a class, creates the students `names` in it and is left on their
    sheet of cards."""
    page.goto("/classes/")
    page.get_by_label("New class").fill(f"Class of {len(names)}")
    page.get_by_role("button", name="Create class").click()
    page.get_by_label("Names").fill("\n".join(names))
    page.get_by_role("button", name="Create accounts").click()
    page.locator("article.credential").nth(len(names) - 1).wait_for()
    page.wait_for_load_state("load")
