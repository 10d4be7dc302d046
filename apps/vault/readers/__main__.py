"""The sandbox child, started by `run_isolated`: `python -m apps.vault.readers FORMAT WORK NAME
OPTIONS`."""

import sys

from apps.vault.readers.sandbox import main

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
