"""Content-Security-Policy beyond the site-wide one in settings (django-csp)."""

from csp.decorators import csp_replace

# For a drawing served on its own (the mindmap SVG): opened directly in a tab it is a
# document, so nothing in it may run or load, and it gets an origin of its own (sandbox).
svg_policy = csp_replace(
    {
        "default-src": ["'none'"],
        "script-src": ["'none'"],
        "style-src": ["'unsafe-inline'"],
        "img-src": ["data:"],
        "connect-src": None,
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
        "sandbox": [""],
    }
)
