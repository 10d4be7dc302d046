"""Running a script in a fresh interpreter, as a process of the app starts: what it has loaded
and prepared is then its own, not what earlier tests left in the test process."""

import os
import subprocess
import sys
from pathlib import Path


def printed(script: str, data_dir: Path) -> list[str]:
    """The words `script` prints, run in a fresh interpreter on its own data folder."""
    ran = subprocess.run(
        [sys.executable, "-c", script],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
            "DATA_DIR": str(data_dir),
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return ran.stdout.split()
