"""The sandbox child: `python -m apps.vault.readers FORMAT PATH` (started by `run_isolated`)."""

import sys

from apps.vault.readers.sandbox import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
