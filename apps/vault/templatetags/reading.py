"""`{{ passage|source_url }}`: where a cited passage opens (apps/vault/reading/links.py)."""

from django import template

from apps.vault.reading.links import source_url

register = template.Library()
register.filter("source_url", source_url)
