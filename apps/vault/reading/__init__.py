"""The reader: a document opened in the app at a cited page with the passage marked, its pages
drawn by a worker in the reading sandbox and kept on disk (docs/knowledge-base.md)."""
