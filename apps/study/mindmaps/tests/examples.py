"""Trees for the mindmap tests: a full tree of a given depth and breadth, with titles of mixed
length and script."""

from apps.study.mindmaps import tree as trees

WORDS = ["Zelle", "Mitochondrium", "ATP", "Photosynthese", "Licht", "Calvin-Zyklus", "🌱", "x"]


def full_tree(levels: int = 4, breadth: int = 8, label: str = "Thema") -> dict:
    def node(level: int, path: str) -> dict:
        children = (
            [node(level + 1, f"{path}.{i}") for i in range(breadth)] if level < levels else []
        )
        return {"title": f"{label} {path} " + WORDS[len(path) % len(WORDS)], "children": children}

    return trees.clean_tree(node(1, "1"))
