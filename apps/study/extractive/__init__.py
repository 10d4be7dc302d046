"""Study material made from the documents' own words, with no model: every question, card,
lesson and mindmap node is cut from a chunk and cites it, so nothing is ever invented.

`apps/vault/sentences.py` splits sentences, `keyterms.py` ranks key terms and `cloze.py` picks
the sentences to ask about; `material` reads what a scope holds; `quizzes`, `cards`, `structure`
(mindmaps and workshop outlines) and `lessons` build on them and return plain dicts the feature
modules store like the model's validated items.
"""
