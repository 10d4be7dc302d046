"""The LAN certificate in a running app's DATA_DIR, for pages that show its fingerprint."""

import shutil

import pytest


@pytest.fixture
def certificate(running_app):
    """`manage.py tls_certificate` run for the app; removed again after the test."""
    running_app.manage("tls_certificate")
    yield
    shutil.rmtree(running_app.data_dir / "tls")
