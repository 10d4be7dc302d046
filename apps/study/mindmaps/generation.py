"""Mindmaps from the vault: the shared generator recipe, with the answer held to a tree."""

from apps.llm import jsonparse, prompts
from apps.progress import tracking
from apps.study import generator, retrieval, starting
from apps.study.errors import MindmapError, NothingValid
from apps.study.extractive import material, structure
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.tree import (
    MAX_CHILDREN,
    MAX_LEVELS,
    MAX_TITLE,
    clean_text,
    clean_tree,
    tree_schema,
    walk,
)
from apps.study.sources import scope_title


def generate_tree(user, scope: generator.Scope, title: str = "") -> tuple[dict, generator.Answer]:
    """The shared recipe for one tree: retrieve, prompt, generate JSON, parse, validate.

    A node's "source" (the excerpt number the model cites) becomes that excerpt's chunk id.
    """
    sources = retrieval.retrieve(user, scope)  # never empty: it raises EmptyScope instead
    prompt = prompts.render(
        "mindmap",
        context=retrieval.context_block(sources),
        title_hint=f'Call it "{title}".' if title else "",
        max_children=MAX_CHILDREN,
        levels=MAX_LEVELS,
    )
    answer = generator.ask(prompt, json=tree_schema())
    data = jsonparse.extract_json(answer.text)
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    try:
        tree = clean_tree(data)
    except MindmapError as error:
        raise generator.NothingValid(
            "The model's answer held no usable mindmap. Try again, or pick a narrower scope."
        ) from error
    for _, node, _, _ in walk(tree):
        cited = node.pop("source", None)
        if isinstance(cited, int) and 1 <= cited <= len(sources):
            node["source"] = sources[cited - 1].chunk_id
    if title:
        tree["title"] = clean_text(title, MAX_TITLE)
    return tree, answer


def start_mindmap(
    user, scope: generator.Scope, title: str = "", method: str | None = None, key: str = ""
) -> tuple[Mindmap, bool]:
    """Check the scope and store the mindmap as "generating", with a root alone for a tree,
    for a worker to draw (fill_mindmap); (the mindmap, new?). The same request `key` gives back
    the mindmap it made before."""
    retrieval.check_scope(user, scope)
    source = scope_title(user, scope)
    name = clean_text(title, MAX_TITLE) or f"Mindmap of {source}"[:MAX_TITLE]
    return starting.create(
        Mindmap,
        user,
        key,
        title=name[:200],
        tree={"title": name, "children": []},
        category_ids=list(scope.category_ids),
        document_ids=list(scope.document_ids),
        asked={"method": method, "title": title, "source": source},
    )


def fill_mindmap(mindmap: Mindmap) -> list:
    """Draw the tree of a mindmap started by start_mindmap, store it, ready, and record it for
    progress; the badges just earned.

    `method` "extractive" draws it from the documents' own structure; "model" asks the model
    and falls back to the structure when its answer held no usable tree; not given,
    extractive when the embedded model would answer."""
    user, title = mindmap.owner, mindmap.asked.get("title", "")
    scope = generator.Scope(mindmap.category_ids, mindmap.document_ids)
    if generator.choose_method(mindmap.asked.get("method")) == generator.EXTRACTIVE:
        tree, label = from_structure(user, scope, title), TEXT_LABEL
    else:
        try:
            tree, answer = generate_tree(user, scope, title)
            label = f"{answer.backend} · {answer.model}".strip(" ·")
        except NothingValid:
            tree = from_structure(user, scope, title)
            label = f"{TEXT_LABEL} (the model's tree was unusable)"
    tree = clean_tree(tree)
    mindmap.mark_ready(tree=tree, title=(title or tree["title"])[:200], model_label=label)
    return tracking.record_mindmap_created(user)


TEXT_LABEL = f"{generator.EXTRACTIVE} · the documents' structure"


def from_structure(user, scope: generator.Scope, title: str = "") -> dict:
    """The scope's documents as one tree: their outlines, or the concepts their chunks share."""
    documents, name = material.outlined(user, scope)
    return structure.mindmap(clean_text(title or name, MAX_TITLE), documents)
